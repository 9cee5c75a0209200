"""`define_skill`: a skill written in Python, held to the same rules as one on disk.

It is validated at once (every problem, field by field, in one error; its `files` go
through the packing rules' own walk, so a secret gets the code a folder on disk gets),
frozen (later changes to the caller's dicts change nothing), and packed on first use
into the shape of a bundled skill, with a generated SKILL.md that reads back to the
same fields.
"""

from __future__ import annotations

import hashlib
import threading
import warnings
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Protocol

from flue_runtime.errors import SkillDefinitionError, SkillPathError, SkillWarning
from flue_runtime.format.diagnostics import Diagnostic
from flue_runtime.format.frontmatter import yaml_quote
from flue_runtime.format.paths import skill_path
from flue_runtime.format.trees import MemoryTree
from flue_runtime.format.validate import SKILL_FILE, SkillMetadata, check_fields
from flue_runtime.format.vetting import PackedFile, walk
from flue_runtime.mount.reference import MountedSource, SkillReference


class _Problem(Protocol):
    def __call__(self, field: str, message: str, hint: str = "", code: str = "FLU202") -> None: ...


def define_skill(
    *,
    name: str,
    description: str,
    instructions: str,
    license: str | None = None,
    compatibility: str | None = None,
    metadata: Mapping[str, str] | None = None,
    allowed_tools: str | Sequence[str] | None = None,
    files: Mapping[str, str | bytes] | None = None,
) -> SkillReference:
    """A skill defined in code; raises `SkillDefinitionError` listing every problem."""
    where = f"define_skill(name={name!r})"
    problems: list[Diagnostic] = []

    def problem(field: str, message: str, hint: str = "", code: str = "FLU202") -> None:
        d = Diagnostic.make(code, where, message, hint)
        problems.append(Diagnostic(d.path, d.code, d.message, d.hint, severity=d.severity, field=field))

    fields: dict[str, object] = {"name": name, "description": description}
    for key, value in (("license", license), ("compatibility", compatibility)):
        if value is not None:
            fields[key] = value
    if metadata is not None:
        if isinstance(metadata, Mapping) and all(isinstance(k, str) for k in metadata):
            fields["metadata"] = dict(metadata)
        else:
            problem("metadata", f"`metadata` must be a mapping of strings, not {type(metadata).__name__}")
    if allowed_tools is not None:
        if isinstance(allowed_tools, str):
            fields["allowed-tools"] = allowed_tools
        elif isinstance(allowed_tools, Sequence) and all(
            isinstance(t, str) and t and not t.split()[1:] for t in allowed_tools
        ):
            fields["allowed-tools"] = " ".join(allowed_tools)
        else:
            problem("allowed-tools", "`allowed_tools` must be a string or a list of tool names without spaces")
    if not isinstance(instructions, str):
        problem("instructions", f"`instructions` must be a string, not {type(instructions).__name__}")
    elif not instructions.strip():
        problem(
            "instructions",
            "`instructions` is blank: activating the skill would give the model nothing to follow",
            "write the steps the model should take once it activates the skill (the body of its SKILL.md)",
        )
    field_warnings = []
    for d in check_fields(fields, where, None):
        if d.is_error:
            problems.append(d)
        else:  # FLU211, FLU213: what check and the builds would say of the same SKILL.md
            field_warnings.append(f"{d.code} {d.message}" + (f" ({d.hint})" if d.hint else ""))
    packed_files, notices = _check_files(files, problem)
    notices = field_warnings + notices
    for key, given in [*fields.items(), ("instructions", instructions)]:
        texts = list(given.values()) if isinstance(given, dict) else [given]
        if any(isinstance(text, str) and not _encodable(text) for text in texts):
            problem(key, f"`{key}` holds a lone surrogate, which UTF-8 cannot encode")
    for notice in notices:
        warnings.warn(f"{where}: {notice}", SkillWarning, stacklevel=2)
    if problems:
        raise SkillDefinitionError(name, problems)
    frozen = SkillMetadata.from_dict(fields)
    return SkillReference(frozen, _DefinedSource(frozen, instructions, packed_files))


def _check_files(files: Mapping[str, str | bytes] | None, problem: _Problem) -> tuple[Mapping[str, bytes], list[str]]:
    """The files that pass the argument's own checks, then the packing rules' walk (secrets, keys, noise,
    limits: the codes a folder on disk gets), and the warnings the walk gave."""
    if files is None:
        return MappingProxyType({}), []
    if not isinstance(files, Mapping):
        problem("files", f"`files` must be a mapping of relative paths to str or bytes, not {type(files).__name__}")
        return MappingProxyType({}), []
    given: dict[str, bytes] = {}
    for path, content in files.items():
        try:
            clean = skill_path(path)
        except SkillPathError as exc:
            problem(
                "files",
                f"files[{path!r}]: {exc.reason}",
                "use a relative POSIX path without `..`, like 'docs/reference.md'",
            )
            continue
        if clean == SKILL_FILE:
            problem(
                "files",
                f"files[{path!r}]: SKILL.md is generated from the other arguments",
                "pass the body as `instructions`",
            )
            continue
        if isinstance(content, str):
            if not _encodable(content):
                problem("files", f"files[{path!r}]: holds a lone surrogate, which UTF-8 cannot encode")
                continue
            data = content.encode("utf-8")
        elif isinstance(content, (bytes, bytearray, memoryview)):
            data = bytes(content)
        else:
            problem("files", f"files[{path!r}]: content must be str or bytes, not {type(content).__name__}")
            continue
        given[clean] = data
    folders = {path[:index] for path in given for index, char in enumerate(path) if char == "/"}
    for path in sorted(folders & given.keys()):
        problem("files", f"files[{path!r}]: is a file and also a folder of other files")
        del given[path]
    walked = walk(MemoryTree(given), display="files")
    notices = []
    for d in walked.diagnostics:
        rel = d.path.removeprefix("files").removeprefix("/")
        message = f"files[{rel!r}]: {d.message}" if rel else f"files: {d.message}"
        if d.is_error:
            problem("files", message, d.hint, d.code)
        else:
            notices.append(f"{d.code} {message}")
    return MappingProxyType({f.path: given[f.path] for f in walked.files}), notices


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def render_skill_md(fields: SkillMetadata, instructions: str) -> str:
    """A SKILL.md whose frontmatter reads back to exactly `fields` and whose body is `instructions`."""
    lines = ["---", f"name: {yaml_quote(fields.name)}", f"description: {yaml_quote(fields.description)}"]
    if fields.license is not None:
        lines.append(f"license: {yaml_quote(fields.license)}")
    if fields.compatibility is not None:
        lines.append(f"compatibility: {yaml_quote(fields.compatibility)}")
    if fields.metadata:
        lines.append("metadata:")
        lines.extend(f"  {yaml_quote(key)}: {yaml_quote(value)}" for key, value in sorted(fields.metadata.items()))
    if fields.allowed_tools is not None:
        lines.append(f"allowed-tools: {yaml_quote(fields.allowed_tools)}")
    lines.append("---")
    return "\n".join(lines) + "\n" + instructions


class _DefinedSource(MountedSource):
    """Packs on first use: the generated SKILL.md plus the given files, hashed once."""

    def __init__(self, fields: SkillMetadata, instructions: str, files: Mapping[str, bytes]) -> None:
        self._fields = fields
        self._instructions = instructions
        self._given = files
        self._lock = threading.Lock()
        self._packed: tuple[tuple[PackedFile, ...], Mapping[str, bytes]] | None = None

    def _pack(self) -> tuple[tuple[PackedFile, ...], Mapping[str, bytes]]:
        if self._packed is None:
            with self._lock:
                if self._packed is None:
                    content = dict(self._given)
                    content[SKILL_FILE] = render_skill_md(self._fields, self._instructions).encode("utf-8")
                    listing = tuple(
                        PackedFile(path, len(data), hashlib.sha256(data).hexdigest())
                        for path, data in sorted(content.items())
                    )
                    self._packed = (listing, MappingProxyType(content))
        return self._packed

    @property
    def name(self) -> str:
        return self._fields.name

    def files(self) -> tuple[PackedFile, ...]:
        return self._pack()[0]

    def read(self, path: str) -> bytes:
        return self._pack()[1][path]

    def instructions(self) -> str:
        return self._instructions

    def is_executable(self, path: str) -> bool:
        return False  # bytes given in code carry no mode

    def describe(self) -> str:
        return f"define_skill(name={self._fields.name!r})"
