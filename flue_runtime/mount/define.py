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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

from flue_runtime.errors import SkillError, SkillPathError, SkillWarning
from flue_runtime.format.diagnostics import Diagnostic, diagnostic, printable
from flue_runtime.format.frontmatter import yaml_quote
from flue_runtime.format.hidden_text import hidden_diagnostics, scan_hidden
from flue_runtime.format.messages import piece
from flue_runtime.format.paths import skill_path
from flue_runtime.format.records import SKILL_FILE, PackedFile, SkillMetadata
from flue_runtime.format.trees import MemoryTree
from flue_runtime.format.triggers import TRIGGERS_FILE, trigger_diagnostics
from flue_runtime.format.validate import check_fields
from flue_runtime.format.vetting import walk
from flue_runtime.mount.reference import Kind, MountedSource, SkillReference

__all__ = ["define_skill", "render_skill_md"]


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
    """A skill defined in code; raises `SkillError` listing every problem, grouped by argument."""
    where = f"define_skill(name={name!r})"
    problems: list[Diagnostic] = []
    problem = problems.append

    fields: dict[str, object] = {"name": name, "description": description}
    for key, value in (("license", license), ("compatibility", compatibility)):
        if value is not None:
            fields[key] = value
    if metadata is not None:
        if isinstance(metadata, Mapping) and all(isinstance(k, str) for k in metadata):
            fields["metadata"] = dict(metadata)
        else:
            problem(diagnostic("FLU202 define metadata", where, field="metadata", type=type(metadata).__name__))
    if allowed_tools is not None:
        if isinstance(allowed_tools, str):
            fields["allowed-tools"] = allowed_tools
        elif isinstance(allowed_tools, Sequence) and all(
            isinstance(t, str) and t and not t.split()[1:] for t in allowed_tools
        ):
            fields["allowed-tools"] = " ".join(allowed_tools)
        else:
            problem(diagnostic("FLU202 define allowed_tools", where, field="allowed-tools"))
    if not isinstance(instructions, str):
        problem(diagnostic("FLU202 define instructions", where, field="instructions", type=type(instructions).__name__))
    elif not instructions.strip():
        problem(diagnostic("FLU202 define blank", where, field="instructions"))
    field_warnings = []
    for d in check_fields(fields, where, None):
        if d.is_error:
            problems.append(d)
        else:  # FLU211, FLU213: what check and the builds would say of the same SKILL.md
            field_warnings.append(f"{d.code} {d.message}" + (f" ({d.hint})" if d.hint else ""))
    packed_files, notices = _check_files(files, where, problem)
    triggers = packed_files.get(TRIGGERS_FILE)
    if triggers is not None:  # FLU316: what check and the builds say of the same eval set
        found = trigger_diagnostics(triggers, TRIGGERS_FILE)
        notices += [f"{d.location}: {d.code} {d.message}" for d in found]
    notices = field_warnings + notices + _check_texts({**fields, "instructions": instructions}, where, problem)
    for notice in notices:
        warnings.warn(f"{where}: {notice}", SkillWarning, stacklevel=2)
    if problems:
        raise _refused(where, problems)
    frozen = SkillMetadata.from_dict(fields)
    return SkillReference(frozen, _DefinedSource(frozen, instructions, packed_files))


def _refused(where: str, problems: list[Diagnostic]) -> SkillError:
    """Every problem of a `define_skill(...)` call, a line each under the argument it is about."""
    fields = SkillError(problems).fields
    lines = [f"  {field}: {message}" for field, messages in fields.items() for message in messages]
    count = f"{len(lines)} problem{'s' if len(lines) != 1 else ''}"
    return SkillError(problems, f"invalid {where}", reason=f"{count}\n" + "\n".join(lines))


def _check_files(
    files: Mapping[str, str | bytes] | None, where: str, problem: Callable[[Diagnostic], None]
) -> tuple[Mapping[str, bytes], list[str]]:
    """The files that pass the argument's own checks, then the packing rules' walk (secrets, keys, noise,
    limits: the codes a folder on disk gets), and the warnings the walk gave."""
    if files is None:
        return MappingProxyType({}), []
    if not isinstance(files, Mapping):
        problem(diagnostic("FLU202 define files", where, field="files", type=type(files).__name__))
        return MappingProxyType({}), []
    given: dict[str, bytes] = {}
    for path, content in files.items():
        try:
            clean = skill_path(path)
        except SkillPathError as exc:
            problem(diagnostic("FLU202 define file path", where, field="files", path=path, reason=exc.reason))
            continue
        if clean == SKILL_FILE:
            problem(diagnostic("FLU202 define SKILL.md", where, field="files", path=path))
            continue
        if isinstance(content, str):
            if not _encodable(content):
                problem(diagnostic("FLU202 define file surrogate", where, field="files", path=path))
                continue
            data = content.encode("utf-8")
        elif isinstance(content, (bytes, bytearray, memoryview)):
            data = bytes(content)
        else:
            problem(
                diagnostic("FLU202 define file content", where, field="files", path=path, type=type(content).__name__)
            )
            continue
        given[clean] = data
    folders = {path[:index] for path in given for index, char in enumerate(path) if char == "/"}
    for path in sorted(folders & given.keys()):
        problem(diagnostic("FLU202 define file and folder", where, field="files", path=path))
        del given[path]
    walked = walk(MemoryTree(given), display="files")
    notices = []
    for d in walked.diagnostics:
        rel = d.path.removeprefix("files").removeprefix("/")
        message = (
            piece("define: file", path=rel, message=d.message) if rel else piece("define: files", message=d.message)
        )
        if d.is_error:  # the walk's words, said of the argument
            problem(
                replace(d, path=printable(where), message=printable(message), line=None, column=None, field="files")
            )
        else:
            notices.append(f"{d.code} {message}")
    return MappingProxyType({f.path: given[f.path] for f in walked.files}), notices


def _check_texts(given: Mapping[str, object], where: str, problem: Callable[[Diagnostic], None]) -> list[str]:
    """FLU202 for a field's string that is not UTF-8 (a lone surrogate); FLU317 and FLU318 for its hidden text,
    at their line and column in the string (what the walk says of the same text in a file). The errors go to
    `problem`, the warnings come back as notices."""
    notices = []
    for key, value in given.items():
        texts = [text for text in (value.values() if isinstance(value, dict) else [value]) if isinstance(text, str)]
        if not all(_encodable(text) for text in texts):
            problem(diagnostic("FLU202 define surrogate", where, field=key, key=key))
            continue
        for text in texts:
            hidden = scan_hidden(text.encode("utf-8"))
            for found in hidden_diagnostics(where, hidden) if hidden is not None else ():
                if found.is_error:
                    problem(replace(found, field=key))
                else:
                    notices.append(f"{key}{found.location.removeprefix(found.path)}: {found.code} {found.message}")
    return notices


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

    kind: Kind = "defined"

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
