"""Every exception and warning the run time raises, in one place: each error is a `FlueError` and carries what a
user needs to fix it; each warning is a `UserWarning` (filtered, not caught).

`flue_runtime` exports the bases and the errors an application meets most; the errors page
(docs/reference/errors.md) is tested against this module. What only a build or the command line raises is in
`flue_build.errors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

__all__ = [
    "AgentError",
    "BundleError",
    "ConfigError",
    "DestinationError",
    "FlueError",
    "ExportError",
    "HookError",
    "HostedServiceError",
    "LockFileError",
    "LoopError",
    "MissingBuildHookError",
    "MissingBuildHookWarning",
    "ModelError",
    "MountError",
    "NotExportedError",
    "PageError",
    "PublishError",
    "ReadOnlyError",
    "RemoteReplyTooLargeError",
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
    """Base class of every error flue raises on purpose; `SkillError`, `MountError` and `AgentError` group
    most of them by what failed (build and command-line errors are in `flue_build.errors`)."""


class MountError(FlueError):
    """A skill that cannot be found, mounted or read, as opposed to one that breaks a rule (`SkillError`):
    a spec naming nothing, a damaged bundle, a path that is not one of a skill's files, a remote server."""


class AgentError(FlueError):
    """The agent or what it runs on failed or was used the wrong way: hooks, tools, sandboxes, the loop,
    session stores, models. The base of every error a harness raises besides skill problems."""


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


class SkillPathError(MountError, ValueError):
    """A path that is not a plain relative path inside a skill. `advice` says what to write instead: by
    default a path relative to the skill folder; where a model reads `/.flue/skills`, a real path there."""

    def __init__(
        self, path: str, reason: str, advice: str = "use a path relative to the skill folder, like 'reference.md'"
    ) -> None:
        self.path, self.reason = path, reason
        from flue_runtime.format.diagnostics import quoted  # (not at import: every module imports the errors)

        super().__init__(f"refused path {quoted(path)}: {reason}; {advice}")


class UnsafeFileError(MountError):
    """A file refused before its bytes are read: a symbolic link (FLU301), not a regular file
    (FLU307), or larger than the caller allows (FLU311). `code` is the diagnostic code."""

    def __init__(self, path: str, code: str, reason: str, mode: int | None = None) -> None:
        self.path, self.code, self.reason, self.mode = path, code, reason, mode
        super().__init__(f"{path}: {reason}")


class SkillWarning(UserWarning):
    """A skill was accepted with a warning (a file skipped as noise, two names differing only in case);
    issued with `warnings.warn` where no report is printed, such as `define_skill(files=...)`. A warning, filtered
    with `warnings`, never caught as a `FlueError`."""


class MissingBuildHookWarning(SkillWarning):
    """A package installed from a wheel built without the flue-skills hook read its skills from its installed files,
    which no build vetted; issued once per distribution and process, naming it and how to add the hook."""


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


# --- mounting --------------------------------------------------------------------------


class SchemaError(AgentError, ValueError):
    """A JSON Schema the run-time validator cannot honour: a keyword it does not implement, or a malformed value."""


class SpecError(MountError, ValueError):
    """A spec that is not of the form `skill()`/`markdown()` accept."""


class SkillNotFoundError(MountError, LookupError):
    """A well-formed spec that names nothing: not bundled, not on disk; or a skill name given to
    `prompt(..., activate=[...])` that no mounted skill has, or a disabled one's."""


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


class BundleError(MountError):
    """A bundle that is there but unusable: unreadable, of another format, a file missing or changed."""


class ResourceNotFoundError(MountError, LookupError):
    """A clean path that is not one of the skill's files."""


class ReadOnlyError(MountError, PermissionError):
    """Skill files are read-only."""


# --- the agent -------------------------------------------------------------------------


class HookError(AgentError):
    """A hook used the wrong way: outside a render, or mounting one name twice."""


class ToolDefinitionError(AgentError, TypeError):
    """A function that cannot become a tool, and why."""


class ToolArgumentError(AgentError, ValueError):
    """The model called a tool with arguments that do not fit its schema."""


class ToolFailure(AgentError):
    """A tool call that failed in a way the model should be told about (an error result)."""


class PageError(AgentError, ValueError):
    """An offset or limit that does not fit the file being read."""


class SandboxError(AgentError):
    """A sandbox path that is refused or does not exist."""


class WorkspaceSkillWarning(UserWarning):
    """A workspace skill was skipped (issued with `warnings.warn`, never raised; not a `FlueError`)."""


class LoopError(AgentError):
    """The model kept calling tools past the step limit."""


class StoreError(AgentError):
    """The session store cannot be opened, read or written."""


class SessionConflictError(StoreError):
    """Another worker saved the session while this turn ran; this turn was not saved.

    The session holds the other turn; prompting again runs on that fresh state."""


class SessionIdError(AgentError, ValueError):
    """A session id no store can keep or no log can show as given: empty, too long, or holding a
    control character, a lone surrogate or another unprintable character."""


class ModelError(AgentError):
    """A model could not be created or did not answer."""


class ScriptExhaustedError(ModelError):
    """The conversation asked a `ScriptedModel` for more turns than its script holds."""


# --- exporting ------------------------------------------------------------------------


class ExportError(FlueError):
    """`flue-skills export`: a skill cannot be exported as it is: a file does not match its manifest, its name is
    not a valid skill name, two skills share a name."""


class DestinationError(ExportError):
    """`flue-skills export`: DIR cannot take the skills: a different folder is in the way, or DIR cannot be written."""


# --- the lock file, publishing --------------------------------------------------------


class LockFileError(FlueError):
    """The lock file (`flue-skills.lock`: what was published, what was pinned) is not one: invalid TOML, another
    format version, a value of the wrong kind. `path` and `line` say where; nothing was read from it."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        self.path, self.line, self.reason = path, line, reason
        super().__init__(f"{path}:{line}: {reason}")


class PublishError(FlueError):
    """`flue-skills publish`: skills that cannot be published as they are, each line naming the skill and why (a
    hosted service's rule it breaks, a file that differs from its manifest, a skill vetting refused); nothing was
    sent for any of them."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        count = len(self.problems)
        #: One line that says it all: how many problems, and that nothing left.
        self.headline = f"{count} problem{'s' if count != 1 else ''} above: nothing was sent for any skill"
        super().__init__("\n".join([*self.problems, self.headline]))


class HostedServiceError(FlueError):
    """`flue-skills publish`: a hosted skill service did not do what was asked: it refused the request (the key,
    the quota, the upload), or could not be reached. `service` and `skill` name them; what was done before it is in
    the lock."""

    def __init__(self, service: str, skill: str, reason: str) -> None:
        self.service, self.skill, self.reason = service, skill, reason
        super().__init__(f"{service}: skill {skill!r}: {reason}")


class SkillVerificationError(MountError):
    """An MCP-served skill is not what its Skills-extension entry says: a file's size or digest, an unlisted
    file, a malformed entry, or a SKILL.md frontmatter field. `skill` is the entry's URI, `what` the file URI
    or the frontmatter field concerned. The host must not use the content."""

    def __init__(self, skill: str, what: str, reason: str) -> None:
        self.skill, self.what, self.reason = skill, what, reason
        super().__init__(f"{skill}: {reason}" if what == skill else f"{skill}: {what}: {reason}")


class RemoteSkillsError(MountError):
    """`flue_runtime.mcp.remote_skills(target)`: the MCP server cannot be used: unreachable, not started, no answer
    within the timeout, no Skills extension, a listing that is not one, or the connection closed by `close()`.
    `server` names it (an URL without credentials, or the command); nothing of the call is mounted."""

    def __init__(self, server: str, reason: str) -> None:
        self.server, self.reason = server, reason
        super().__init__(f"{server}: {reason}")


class RemoteReplyTooLargeError(RemoteSkillsError):
    """`remote_skills`: the server sent one reply (a JSON body, a server-sent event, a stdio line) longer than
    `limit` bytes; it was refused before it was parsed, by its bytes as they arrived, and the session was ended.
    `what` is the request it answered; the limit follows the `bundle_size` of the call's `limits`."""

    def __init__(self, server: str, what: str, limit: int) -> None:
        self.what, self.limit = what, limit
        super().__init__(
            server,
            f"{what}: the server sent a reply of more than {limit:,} bytes ({limit / 2**20:.1f} MiB), the most one "
            "reply may hold (a file as large as a skill may be, base64-encoded, plus 1 MiB); refused before it was "
            "parsed. A larger limits.bundle_size raises the limit",
        )
