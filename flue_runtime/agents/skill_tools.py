"""The skill tools' results as plain functions of a set of mounted skills: one implementation.

`MountedSkills` answers what a model asks about skills: the catalog text, the activation
result for a name, a page of a skill file, the best catalog lines for a query. The
harness's tools call exactly these, and every other surface (an MCP server, a framework
adapter) should too, so a model sees the same text for the same skills everywhere. The
tool definitions are constants: byte-identical whatever is mounted, so a provider's
prompt cache survives a catalog change.

Every result has a budget: activation and file pages at most `MAX_BYTES` of text, the
catalog `CATALOG_BUDGET` bytes of skill lines, lists of names and matches a bounded count.

Every error a model gets says what to send instead, in a form it can send as it stands (a full
virtual path, a skill name, an offset range); tests/harness/test_tool_errors_advice.py follows
each one's advice and requires the second call to succeed.
"""

from __future__ import annotations

import difflib
import functools
import io
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flue_runtime.agents.approval import ActingOn, ReadConsent, ReadRequest
from flue_runtime.agents.catalog import (
    CATALOG_BUDGET,
    NAMES_LIMIT,
    CatalogItem,
    catalog,
    catalog_line,
    listed,
    names_text,
)
from flue_runtime.agents.provenance import served
from flue_runtime.agents.reading import (
    HINT_ROOM,
    MAX_BYTES,
    page_stream,
    paths_page,
    text_window,
    utf8_size,
)
from flue_runtime.agents.tools import Tool, defined_tool
from flue_runtime.agents.workspace import WorkspaceSource
from flue_runtime.errors import AgentError, FlueError, ToolFailure
from flue_runtime.format.diagnostics import quoted
from flue_runtime.format.paths import MAX_PATH_BYTES, skill_path, some_paths
from flue_runtime.format.records import SKILL_FILE
from flue_runtime.models.base import Message
from flue_runtime.mount.origins import origin_line
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.vfs import FLUE_ROOT, SKILLS_ROOT, SkillTree, identity_of

#: At most this many catalog lines come back from `find_skills`.
FIND_LIMIT = 20
#: Bytes of an activation result the list of support files may take (some 500 paths).
FILES_BUDGET = MAX_BYTES // 2
SCRIPTS_DIR = "scripts/"

_OFFSET = {"type": "integer", "minimum": 0, "description": "first line (text, 1-based) or byte (binary)"}
_LIMIT = {"type": "integer", "minimum": 1, "description": "at most this many lines (text) or bytes (binary)"}
_COLUMN = {
    "type": "integer",
    "minimum": 1,
    "description": "first character of the line at offset (1-based), to read on in a line longer than a page",
}

ACTIVATE_SKILL: dict[str, Any] = {
    "name": "activate_skill",
    "description": (
        "Load a skill's full instructions (and the list of its support files) by its name from the "
        "Available Skills list. Call it before starting work that matches the skill's description."
    ),
    "parameters": {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "The skill's name, as the catalog lists it"}},
        "required": ["name"],
        "additionalProperties": False,
    },
}
READ_SKILL_RESOURCE: dict[str, Any] = {
    "name": "read_skill_resource",
    "description": (
        f"Read a support file of an activated skill by its path under {FLUE_ROOT}/, as activate_skill lists it. "
        "Text comes with "
        "line numbers, at most 2,000 lines or 50 KB per call (the result says how to read on); binary files "
        "come as base64."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": f"e.g. {SKILLS_ROOT}/<skill>/reference.md"},
            "offset": _OFFSET,
            "limit": _LIMIT,
            "column": _COLUMN,
        },
        "required": ["path"],
        "additionalProperties": False,
    },
}
FIND_SKILLS: dict[str, Any] = {
    "name": "find_skills",
    "description": (
        "Search all available skills, including those the Available Skills list leaves out, by what you "
        "need to do. Returns the best-matching catalog lines; activate one with activate_skill."
    ),
    "parameters": {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "a few words about the task, e.g. 'fill pdf form'"}},
        "required": ["query"],
        "additionalProperties": False,
    },
}


# --- the set of mounted skills -----------------------------------------------------------------


@dataclass(frozen=True)
class Mounted:
    """A skill in the catalog, and its folder when it came from the workspace."""

    skill: SkillReference
    workspace_folder: str | None = None


class MountedSkills:
    """Mounted skills, in catalog order, and every result a model gets about them.

    `budget` is the catalog's (bytes of skill lines); past it, `find_skills` is needed.
    `activated` gives the names of the skills the model activated in its conversation, where the
    host keeps one (the harness): a path relative to a skill's folder means theirs first (`locate`).
    """

    def __init__(
        self,
        skills: Iterable[SkillReference | Mounted],
        *,
        budget: int | None = CATALOG_BUDGET,
        activated: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        self.mounted = tuple(s if isinstance(s, Mounted) else Mounted(s) for s in skills)
        self.budget = budget
        self.tree = SkillTree([m.skill for m in self.mounted])
        self._by_name = {m.skill.name: m for m in self.mounted}
        self._activated = activated

    @property
    def entries(self) -> list[CatalogItem]:
        return list(self._entries)

    @functools.cached_property
    def _entries(self) -> tuple[CatalogItem, ...]:
        return tuple((m.skill.name, m.skill.description) for m in self.mounted)  # a reference's fields never change

    @property
    def references(self) -> list[SkillReference]:
        """The mounted skills, in catalog order."""
        return [m.skill for m in self.mounted]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self._entries]

    def __len__(self) -> int:
        return len(self.mounted)

    def get(self, name: str) -> Mounted | None:
        return self._by_name.get(name)

    # --- which tools the set needs ----------------------------------------------------------

    @functools.cached_property
    def searchable(self) -> bool:
        """The catalog does not list every skill: `find_skills` is needed (known once: names and descriptions never change)."""
        return listed(self._entries, self.budget) < len(self.mounted)

    @property
    def has_resources(self) -> bool:
        """Some skill has support files (or instructions longer than one activation result)."""
        return any(m.skill.resources or _long(m.skill) for m in self.mounted)

    @property
    def has_scripts(self) -> bool:
        """Whether a skill the application mounted ships scripts (a workspace skill's never run)."""
        return bool(self.with_scripts)

    @property
    def with_scripts(self) -> list[str]:
        """The names of the skills the application mounted that ship scripts (a workspace skill's never run)."""
        return [
            m.skill.name
            for m in self.mounted
            if m.workspace_folder is None and any(f.path.startswith(SCRIPTS_DIR) for f in m.skill.files)
        ]

    @property
    def folders(self) -> list[Path]:
        """The folders on disk of the skills the application mounted from a folder (dev mode): the model's
        write tools keep out of them."""
        return [folder for m in self.mounted if m.workspace_folder is None and (folder := m.skill.folder) is not None]

    def tool_names(self) -> list[str]:
        """The skill tools this set needs, in their fixed order."""
        if not self.mounted:
            return []
        needs = {"activate_skill": True, "read_skill_resource": self.has_resources, "find_skills": self.searchable}
        return [name for name, needed in needs.items() if needed]

    def tool(self, name: str, reads: ReadConsent | None = None) -> Tool:
        """The skill tool `name`, its definition constant, its function this set's; `reads`: the read policy a read
        across origins is asked of (the harness's), None where no conversation is kept (nothing is activated)."""
        functions: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {
            "activate_skill": (ACTIVATE_SKILL, self.activate),
            "read_skill_resource": (READ_SKILL_RESOURCE, self.read_resource if reads is None else self._asking(reads)),
            "find_skills": (FIND_SKILLS, self.find),
        }
        spec, function = functions[name]
        return defined_tool(spec, function)

    def _asking(self, reads: ReadConsent) -> Callable[..., Awaitable[str]]:
        """`read_skill_resource` asking `reads` before a read across origins (`approve_read`)."""

        async def read_resource(
            path: str, offset: int | None = None, limit: int | None = None, column: int | None = None
        ) -> str:
            found = self._found(path, offset, limit, column)
            if isinstance(found, str):  # a folder's listing: names only, no file's content
                return found
            await self.approve_read(reads, found[0], found[1])
            return self._page(*found, offset, limit, column)

        return read_resource

    # --- results ---------------------------------------------------------------------------

    def catalog(self) -> str:
        """The `## Available Skills` section (see `catalog`)."""
        return catalog(self.entries, self.budget)

    def activate(self, name: str) -> str:
        """The instructions of skill `name` (one page at most) and its support files' virtual paths.

        An unknown name is a normal result that lists names (bounded), so the model can correct
        itself. A workspace skill, or a folder read from disk in dev mode, is vetted again here: its
        file list is the one on disk now.
        """
        found = self._by_name.get(name)
        if found is None:
            return self._unknown(name)
        try:
            if isinstance(found.skill.source, WorkspaceSource):
                found.skill.source.relist()
            else:
                found = Mounted(found.skill.current(), found.workspace_folder)
        except FlueError as exc:
            raise ToolFailure(str(exc)) from exc
        skill = found.skill
        footer = self._files_text(found)
        server = identity_of(skill)  # (a remote skill's tag names its server: its origin, whatever text shows it)
        tag = f'<skill name="{skill.name}"' + (f' server="{server}">' if server else ">")
        room = MAX_BYTES - HINT_ROOM - utf8_size(footer) - utf8_size(tag) - utf8_size(skill.name) - 32
        page = _instructions_page(skill, room, self.tree.path(skill.name, SKILL_FILE))
        text = "\n".join([tag, page, "</skill>", "", footer])
        served("activation", skill)
        return text

    def read_resource(
        self, path: str, offset: int | None = None, limit: int | None = None, column: int | None = None
    ) -> str:
        """A page of a skill file, or of a folder's listing: by its path under /.flue, or by one that `locate`
        resolves."""
        found = self._found(path, offset, limit, column)
        return found if isinstance(found, str) else self._page(*found, offset, limit, column)

    def _found(
        self, path: str, offset: int | None, limit: int | None, column: int | None
    ) -> tuple[SkillReference, str, str] | str:
        """The skill, the path in it and the virtual path of the file `path` names (`locate`); or, when it names a
        folder of a skill, that page of its listing."""
        try:
            found = self.locate(path)
            folder = self.tree.folder(found)
            if folder is not None:
                return self._listing(*folder, offset, limit, column)
            skill, inner = self.tree.file(found)
        except (FlueError, ValueError) as exc:
            raise ToolFailure(str(exc)) from exc
        return skill, inner, found

    def _page(
        self, skill: SkillReference, inner: str, label: str, offset: int | None, limit: int | None, column: int | None
    ) -> str:
        try:
            handle, size = skill.open(inner)
            header = origin_line(skill, f"File {inner}") or ""  # (a remote skill's file says where it came from)
            with handle:
                text = page_stream(handle, size, label, "read_skill_resource", offset, limit, column, header=header)
        except (FlueError, OSError, ValueError) as exc:
            raise ToolFailure(str(exc)) from exc
        served("read", skill, inner)
        return text

    async def approve_read(self, reads: ReadConsent, skill: SkillReference, inner: str) -> None:
        """While the model acts on remote skills (activated ones a server serves) of another origin than `skill`'s,
        a read of its file `inner` needs the read policy's approval, asked at each call; `ToolFailure` (the model
        is told, naming both servers) unless it approves."""
        server = identity_of(skill)
        acting = tuple(
            ActingOn(other.name, other.origin, found)
            for name in self.activated()
            if (found := identity_of(other := self._by_name[name].skill)) is not None and found != server
        )
        if not acting:
            return
        request = ReadRequest(reads.session_id, skill.name, skill.origin, server, inner, acting)
        policy = reads.policy
        try:
            approved = await policy.approves(request)
        except Exception as exc:  # the application's callback failed: nothing is read, the loop goes on
            approved, why = False, f"failed ({type(exc).__name__}: {exc}), so it "
        else:
            why = ""
        if not approved:
            whose = f"server {server}" if server else "the application's own"
            servers = ", ".join(f"{a.skill!r} (server {a.server})" for a in acting)
            raise ToolFailure(
                f"{inner} of skill {skill.name!r} ({skill.origin}; {whose}) was not read: you are acting on the "
                f"remote skill{'s' if len(acting) > 1 else ''} {servers}, and reading another origin's skill "
                f"meanwhile {why}was not approved by the application's read policy {policy.name!r}; do not retry "
                "it, answer without it"
            )

    def _listing(self, name: str, folder: str, offset: int | None, limit: int | None, column: int | None) -> str:
        """A page of the support files under `folder` of skill `name`, as its activation lists them (the skill's own
        folder: the same order, so an activation's "more files" goes on at the offset it names)."""
        if column is not None:
            raise AgentError(f"{self.tree.path(name, folder)} is a folder: its offset counts files; leave column out")
        skill = self._by_name[name].skill
        prefix = f"{folder}/" if folder else ""
        paths = [self.tree.path(name, p) for p in sorted(skill.resources) if p.startswith(prefix)]
        header = origin_line(skill, f"Folder {folder or '.'}") or ""  # (a remote skill's listing says its origin)
        return paths_page(paths, self.tree.path(name, folder), "read_skill_resource", offset, limit, header=header)

    def activated(self) -> list[str]:
        """The mounted skills the model activated in its conversation (none where the host keeps no conversation)."""
        names = set(self._activated()) if self._activated is not None else set()
        return [name for name in self.names if name in names]

    def locate(self, path: str) -> str:
        """The virtual path `path` means: itself under /.flue; else the one file it names (`_meanings`).

        A model that activated a skill often writes a support file's path as the skill's instructions
        do, relative to the skill's folder (`references/vat-rules.md`). That is read when it names
        exactly one file among the skills activated in this conversation (the model was shown their
        files' paths), and only there: never another skill's file in their place, which may be another
        origin's (the Skills extension: content never crosses from one origin to another unasked). A
        host that keeps no conversation (MCP, the framework adapters), or a conversation before any
        activation, has nothing activated: there the rule is "one file among every skill given".
        Anything else is a `FlueError` naming the full paths to use: every candidate when several skills
        have the file, else the closest files, else the files of the activated skills, else the skills
        to activate.
        """
        relative = None if self.tree.is_skill_path(path) else _relative(path)
        if relative is None:
            return path  # the tree reads it, or says why not and what to use instead
        meant = self._meanings(relative)
        activated = self.activated()
        chosen = [m for m in meant if m[0] in activated] if activated else meant
        if len(chosen) == 1:
            return self.tree.path(*chosen[0])
        shown = quoted(path)
        if chosen:
            paths = some_paths([self.tree.path(*m) for m in chosen])
            raise ToolFailure(
                f"{shown} is not under {FLUE_ROOT}/ and names a file of {len(chosen)} "
                f"{'activated skills' if activated else 'skills'}; read the one you mean by its full path: {paths}"
            )
        if meant:  # (only skills not activated have it)
            paths = some_paths([self.tree.path(*m) for m in meant])
            raise ToolFailure(
                f"{shown} is not under {FLUE_ROOT}/ and names no file of the activated skills "
                f"({some_paths(activated)}), within which a relative path is read; another skill has it: read "
                f"{paths} by its full path if you mean that skill's file"
            )
        close = self.tree.closest(relative, activated) or self.tree.closest(relative, self.names)
        if close:
            advice = f"did you mean {' or '.join(close)}?"
        elif activated:
            files = some_paths([p for name in activated for p in self.tree.files_of(name)])
            advice = f"the activated skills' files: {files}"
        else:
            advice = f"available skills: {some_paths(self.names)} (activate_skill lists each one's files)"
        raise ToolFailure(f"{shown} is not under {FLUE_ROOT}/ and names no skill's file; {advice}")

    def _meanings(self, relative: str) -> list[tuple[str, str]]:
        """The files a clean relative path may name, as (skill, path in it): each skill that has it relative to
        its folder; `<skill>/<path>` (relative to the folder holding the skill's: /.flue/skills, or a remote
        skill's /.flue/remote/<server identity>); a workspace skill's file by its path in the sandbox
        (`.agents/skills/<skill>/<path>`)."""
        found = [(name, relative) for name in self.names if self.tree.has(name, relative)]
        head, _, rest = relative.partition("/")
        if rest and self.tree.has(head, rest):
            found.append((head, rest))
        name, _, inner = rest.partition("/")  # (`<server identity>/<skill>/<path>`, relative to /.flue/remote)
        if inner and self.tree.has(name, inner) and self.tree.path(name).endswith(f"/{head}/{name}"):
            found.append((name, inner))
        for m in self.mounted:
            folder = m.workspace_folder
            inner = relative[len(folder) + 1 :] if folder and relative.startswith(folder + "/") else ""
            if inner and self.tree.has(m.skill.name, inner):
                found.append((m.skill.name, inner))
        return list(dict.fromkeys(found))

    def skill_paths(self, path: str) -> list[str]:
        """The virtual paths of the skill files a path outside /.flue may mean, the activated skills' first
        (for the sandbox `read` tool to say where a file it did not find is)."""
        relative = None if self.tree.is_skill_path(path) else _relative(path)
        if relative is None:
            return []
        activated = self.activated()
        return [self.tree.path(*m) for m in sorted(self._meanings(relative), key=lambda m: m[0] not in activated)]

    def find(self, query: str) -> str:
        """The catalog lines that best match `query` (at most `FIND_LIMIT`), best first."""
        terms = _words(query)
        if not terms:
            raise ToolFailure("give find_skills a few words about the task, like 'fill pdf form'")
        scored = []
        for index, m in enumerate(self.mounted):
            score = _score(terms, m.skill.name, m.skill.description)
            if score:
                scored.append((-score, index, m.skill))
        if not scored:
            return f"No skill matches {quoted(query)}. Try other words, or fewer."
        scored.sort(key=lambda item: (item[0], item[1]))
        best = [catalog_line(s.name, s.description) for _, _, s in scored[:FIND_LIMIT]]
        head = f"{len(scored):,} skill{'s match' if len(scored) != 1 else ' matches'} {quoted(query)}"
        if len(scored) > FIND_LIMIT:
            head += f"; the best {FIND_LIMIT}"
        return "\n".join([head + ":", *best, "Activate one with activate_skill."])

    # --- parts ------------------------------------------------------------------------------

    def _unknown(self, name: str) -> str:
        names = self.names
        text = f"There is no skill named {quoted(name)}."
        if len(names) > NAMES_LIMIT:
            close = difflib.get_close_matches(name[:128], names, n=10)  # (longer than any name: no need to compare all)
            if close:
                text += f" Similar names: {', '.join(close)}."
            if self.searchable:
                return text + f" There are {len(names):,} skills: call find_skills with a few words to search them."
        return text + f" Available skills: {names_text(names, self.searchable)}."

    def _files_text(self, mounted: Mounted) -> str:
        skill = mounted.skill
        lines = []
        if mounted.workspace_folder is not None:
            lines.append(f"Base folder: {mounted.workspace_folder} (paths in these instructions are relative to it)")
        resources = sorted(skill.resources)
        if not resources:
            return "\n".join([*lines, "This skill has no support files."])
        lines.append("Support files (read them with read_skill_resource when the instructions call for them):")
        used = 0
        for count, path in enumerate(resources):
            line = f"- {self.tree.path(skill.name, path)}"
            used += utf8_size(line) + 1
            if used > FILES_BUDGET:
                lines.append(
                    f"[{len(resources) - count:,} more files: call read_skill_resource with "
                    f"path={self.tree.path(skill.name)} and offset={count + 1} to list them]"
                )
                break
            lines.append(line)
        return "\n".join(lines)


def _relative(path: str) -> str | None:
    """`path` as a clean relative skill path, blanks and leading `./` and `/` dropped; None if it is none."""
    if len(path) > MAX_PATH_BYTES:  # (before the trimming, which would copy it at each step)
        return None
    trimmed = path.strip()
    while trimmed.startswith(("./", "/")):
        trimmed = trimmed[2:] if trimmed.startswith("./") else trimmed[1:]
    try:
        return skill_path(trimmed)
    except ValueError:
        return None


def activated_skills(messages: Iterable[Message]) -> list[str]:
    """The names the model called `activate_skill` with in `messages`, first call first: the skills whose
    files' paths it was shown (an unknown name matches no mounted skill)."""
    names: list[str] = []
    for message in messages:
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        for call in calls if isinstance(calls, list) else ():
            arguments = (
                call.get("arguments") if isinstance(call, dict) and call.get("name") == "activate_skill" else None
            )
            if isinstance(arguments, dict) and isinstance(arguments.get("name"), str):
                names.append(arguments["name"])
    return list(dict.fromkeys(names))


def _long(skill: SkillReference) -> bool:
    """Instructions too long for one activation result (known from SKILL.md's size, without reading it)."""
    return any(f.path == SKILL_FILE and f.size > MAX_BYTES - 1024 for f in skill.files)


def _instructions_page(skill: SkillReference, room: int, where_read: str) -> str:
    """The instructions, or the first `room` bytes of them and where in SKILL.md (at `where_read`) the rest is."""
    body = skill.instructions
    text = body.strip("\n")
    if utf8_size(text) <= room:
        return text
    window = text_window(io.BytesIO(text.encode("utf-8")), 1, 1, len(text), room, numbered=False)
    assert window.next is not None  # the text is larger than the room
    line, column = window.next
    # The body is the end of SKILL.md: its first line there follows from the newlines before it.
    skill_md = skill.read_bytes(SKILL_FILE).decode("utf-8", "replace")
    first = skill_md.count("\n") - body.count("\n") + (len(body) - len(body.lstrip("\n"))) + 1
    more = window.lines - len(window.rows) + (column > 1)
    where = f"offset={first + line - 1}" + (f" and column={column}" if column > 1 else "")
    hint = (
        f"[the instructions are longer than {MAX_BYTES // 1024} KB: {more} more line{'s' if more != 1 else ''}; "
        f"read them with read_skill_resource path={where_read} {where}]"
    )
    return window.text(numbered=False) + "\n" + hint


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _score(terms: Sequence[str], name: str, description: str) -> int:
    """How well `terms` match a skill: a whole name counts most, a word of the name, then the description."""
    name_words = set(name.split("-"))
    described = set(_words(description))
    score = 0
    for term in terms:
        if term == name:
            score += 8
        elif term in name_words:
            score += 4
        elif len(term) >= 3 and term in name:
            score += 2
        if term in described:
            score += 2
        elif len(term) >= 3 and any(word.startswith(term) for word in described):
            score += 1
    return score


def skill_tools(skills: Iterable[SkillReference | Mounted], *, budget: int | None = CATALOG_BUDGET) -> list[Tool]:
    """The skill tools a set of skills needs, ready to offer a model."""
    found = MountedSkills(skills, budget=budget)
    return [found.tool(name) for name in found.tool_names()]


__all__ = [
    "ACTIVATE_SKILL",
    "FIND_SKILLS",
    "READ_SKILL_RESOURCE",
    "Mounted",
    "MountedSkills",
    "activated_skills",
    "skill_tools",
]
