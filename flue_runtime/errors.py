"""Every exception flue raises, in one place; each is a `FlueError` and carries what a user needs to fix it.

`flue_runtime` exports each name; the README's list of errors is tested against this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

__all__ = [
    "BuildError",
    "BundleError",
    "ConfigError",
    "FlueError",
    "ExportError",
    "HookError",
    "ListError",
    "LoopError",
    "MissingBuildHookError",
    "ModelError",
    "NotExportedError",
    "NotInstalledError",
    "PageError",
    "ReadOnlyError",
    "RemoteSkillsError",
    "ResourceNotFoundError",
    "SandboxError",
    "SchemaError",
    "ScriptExhaustedError",
    "SessionConflictError",
    "SessionIdError",
    "SkillDefinitionError",
    "SkillError",
    "SkillNotFoundError",
    "SkillPathError",
    "SkillSourceError",
    "SkillVerificationError",
    "SkillWarning",
    "SpecError",
    "StoreError",
    "TargetError",
    "ToolArgumentError",
    "ToolDefinitionError",
    "ToolFailure",
    "UnknownPackageError",
    "UnsafeFileError",
    "WorkspaceSkillWarning",
]

if TYPE_CHECKING:
    from pathlib import Path

    from flue_runtime.format.diagnostics import Diagnostic


class FlueError(Exception):
    """Base class of every error flue raises on purpose."""


# --- the skill format ------------------------------------------------------------------


class SkillError(FlueError):
    """One or more problems in skills; `diagnostics` holds all of them.

    The message is one line naming the first problem and the count, because pip and
    other front ends often show only the last line of a failure.
    """

    def __init__(self, diagnostics: Sequence[Diagnostic], context: str = "") -> None:
        self.diagnostics = tuple(diagnostics)
        errors = [d for d in self.diagnostics if d.is_error] or list(self.diagnostics)
        first = errors[0] if errors else None
        head = f"{context}: " if context else ""
        if first is None:
            message = f"{head}invalid skill"
        else:
            message = f"{head}{first.location}: {first.code} {first.message}"
            if len(errors) > 1:
                message += f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})"
        super().__init__(message)

    def report(self) -> str:
        """Every diagnostic, compiler style, with hints."""
        return "\n".join(d.format() for d in self.diagnostics)


class SkillDefinitionError(SkillError):
    """Every problem of a `define_skill(...)` call, grouped by argument."""

    def __init__(self, name: object, diagnostics: Sequence[Diagnostic]) -> None:
        super().__init__(diagnostics)
        self.fields: dict[str, list[str]] = {}
        for d in diagnostics:
            self.fields.setdefault(d.field or "?", []).append(d.message)
        lines = [f"  {field}: {message}" for field, messages in self.fields.items() for message in messages]
        count = len(lines)
        plural = "s" if count != 1 else ""
        self.args = (f"invalid define_skill(name={name!r}): {count} problem{plural}\n" + "\n".join(lines),)


class SkillSourceError(SkillError):
    """A skill from a `SkillSource` (`load_skill`) that cannot be mounted or read: refused by the build's rules at
    load, a file whose bytes differ at read from what its source listed, a private key found in a file read late,
    or a source that failed. `source` is the source's `describe()`; `diagnostics` holds every problem. Nothing of
    a skill refused at load is mounted."""

    def __init__(self, source: str, diagnostics: Sequence[Diagnostic] = (), reason: str = "") -> None:
        named = all(d.path.startswith(source) for d in diagnostics) and bool(diagnostics)
        super().__init__(diagnostics, "" if named else source)  # (a location that names the source says it once)
        self.source = source
        if reason:
            self.args = (f"{source}: {reason}",)


class SkillPathError(FlueError, ValueError):
    """A path that is not a plain relative path inside a skill."""

    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason
        shown = repr(path) if len(path) <= 300 else f"{path[:200]!r}... ({len(path):,} characters)"
        super().__init__(
            f"refused path {shown}: {reason}; use a path relative to the skill folder, like 'reference.md'"
        )


class UnsafeFileError(FlueError):
    """A file refused before its bytes are read: a symbolic link (FLU301), not a regular file
    (FLU307), or larger than the caller allows (FLU311). `code` is the diagnostic code."""

    def __init__(self, path: str, code: str, reason: str, mode: int | None = None) -> None:
        self.path, self.code, self.reason, self.mode = path, code, reason, mode
        super().__init__(f"{path}: {reason}")


class SkillWarning(FlueError, UserWarning):
    """A skill was accepted with a warning (a file skipped as noise, two names differing only in case);
    issued with `warnings.warn` where no report is printed, such as `define_skill(files=...)`."""


class ConfigError(FlueError):
    """`[tool.flue]` is invalid, or the pyproject.toml holding it cannot be read as TOML.

    `problems` lists every one; `headline` says what is wrong in a few words; `line` and
    `column` place a TOML syntax error. The message holds all of it on one line, for
    front ends that show only the last one; `lines()` is the same, a problem a line.
    """

    def __init__(
        self,
        path: Path,
        problems: list[str],
        *,
        headline: str = "invalid [tool.flue] configuration",
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.path = path
        self.problems = tuple(problems)
        self.line, self.column = line, column
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        self.headline = headline if line is not None else f"{headline} ({count})"
        super().__init__(f"{path}: {self.headline}: " + "; ".join(problems))

    def lines(self, shown: str | None = None) -> list[str]:
        """Each problem as `path: problem` (`path:line:col: problem` for a TOML syntax error);
        `shown` is how to print the path (default: as given)."""
        where = str(self.path) if shown is None else shown
        if self.line is not None:
            where += f":{self.line}:{self.column or 1}"
        return [f"{where}: {problem}" for problem in self.problems]


class BuildError(FlueError, SystemExit):
    """A build that flue-skills stopped, after printing why; the message is the one-line summary.

    Also a `SystemExit` with status 1: a build front end's hook process (pip's, `python -m
    build`'s) then ends after our printed diagnostics instead of printing a traceback of our
    frames. Code that runs a backend in its own process catches it as a `FlueError`.
    `diagnostics` holds the problems, when diagnostics were the cause.
    """

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.code = 1  # SystemExit's exit status; BaseException.__init__ leaves it None (status 0)
        self.diagnostics = tuple(diagnostics)


# --- mounting --------------------------------------------------------------------------


class SchemaError(FlueError, ValueError):
    """A JSON Schema the run-time validator cannot honour: a keyword it does not implement, or a malformed value."""


class SpecError(FlueError, ValueError):
    """A spec that is not of the form `skill()`/`markdown()` accept."""


class SkillNotFoundError(FlueError, LookupError):
    """A well-formed spec that names nothing: not bundled, not on disk."""


class MissingBuildHookError(SkillNotFoundError):
    """The package holding the call was built without the flue-skills hook, and the files are not on disk."""


class UnknownPackageError(SkillNotFoundError):
    """A package spec whose first segment is not an importable package."""


class NotExportedError(SkillNotFoundError):
    """A package spec into a distribution that declares `[tool.flue] exports` and does not list it.

    `spec` is the spec as written; `exports` what the distribution does export.
    """

    def __init__(self, message: str, spec: str, exports: Sequence[str]) -> None:
        self.spec = spec
        self.exports = tuple(exports)
        super().__init__(message)


class BundleError(FlueError):
    """A bundle that is there but unusable: unreadable, of another format, a file missing or changed."""


class ResourceNotFoundError(FlueError, LookupError):
    """A clean path that is not one of the skill's files."""


class ReadOnlyError(FlueError, PermissionError):
    """Skill files are read-only."""


# --- the agent -------------------------------------------------------------------------


class HookError(FlueError):
    """A hook used the wrong way: outside a render, or mounting one name twice."""


class ToolDefinitionError(FlueError, TypeError):
    """A function that cannot become a tool, and why."""


class ToolArgumentError(FlueError, ValueError):
    """The model called a tool with arguments that do not fit its schema."""


class ToolFailure(FlueError):
    """A tool call that failed in a way the model should be told about (an error result)."""


class PageError(FlueError, ValueError):
    """An offset or limit that does not fit the file being read."""


class SandboxError(FlueError):
    """A sandbox path that is refused or does not exist."""


class WorkspaceSkillWarning(FlueError, UserWarning):
    """A workspace skill was skipped (issued with `warnings.warn`, never raised)."""


class LoopError(FlueError):
    """The model kept calling tools past the step limit."""


class StoreError(FlueError):
    """The session store cannot be opened, read or written."""


class SessionConflictError(StoreError):
    """Another worker saved the session while this turn ran; this turn was not saved.

    The session holds the other turn; prompting again runs on that fresh state."""


class SessionIdError(FlueError, ValueError):
    """A session id no store can keep or no log can show as given: empty, too long, or holding a
    control character, a lone surrogate or another unprintable character."""


class ModelError(FlueError):
    """A model could not be created or did not answer."""


class ScriptExhaustedError(ModelError):
    """The conversation asked a `ScriptedModel` for more turns than its script holds."""


# --- the command line ------------------------------------------------------------------


class ListError(FlueError):
    """`flue-skills ls`: TARGET names nothing that ships skills, or cannot be read."""


class NotInstalledError(ListError):
    """`flue-skills ls`: no installed package or distribution of that name."""


class TargetError(ListError):
    """`flue-skills mcp`/`export`: TARGET names no skills, or two different skills with one name."""


class ExportError(FlueError):
    """`flue-skills export`: a folder would be overwritten, or a file does not match the manifest."""


class SkillVerificationError(FlueError):
    """An MCP-served skill is not what its Skills-extension entry says: a file's size or digest, an unlisted
    file, a malformed entry, or a SKILL.md frontmatter field. `skill` is the entry's URI, `what` the file URI
    or the frontmatter field concerned. The host must not use the content."""

    def __init__(self, skill: str, what: str, reason: str) -> None:
        self.skill, self.what, self.reason = skill, what, reason
        super().__init__(f"{skill}: {reason}" if what == skill else f"{skill}: {what}: {reason}")


class RemoteSkillsError(FlueError):
    """`flue_runtime.mcp.remote_skills(target)`: the MCP server cannot be used: unreachable, not started, no answer
    within the timeout, no Skills extension, a listing that is not one, or the connection closed by `close()`.
    `server` names it (an URL without credentials, or the command); nothing of the call is mounted."""

    def __init__(self, server: str, reason: str) -> None:
        self.server, self.reason = server, reason
        super().__init__(f"{server}: {reason}")
