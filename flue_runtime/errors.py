"""Every exception and warning the run time raises, in one place: each error is a `FlueError` and carries what a
user needs to fix it; each warning is a `SkillWarning` (filtered, not caught). One class for each thing a caller
would catch differently (issue 42: at most 25 here and in `flue_build.errors` together):

    FlueError
    ├── SkillError              a skill breaks a rule (`diagnostics`); from a source, `source` names it
    ├── ConfigError             `[tool.flue]` or its pyproject.toml is invalid
    ├── MountError              a skill that cannot be found, mounted or read
    │   ├── SkillNotFoundError  a spec, a file or a skill name that names nothing (a `LookupError`)
    │   ├── SkillPathError      a path that is not a plain relative path in a skill (a `ValueError`)
    │   ├── UnsafeFileError     a file refused before it is read (`code`)
    │   ├── SkillVerificationError  an MCP-served skill that is not what its entry says
    │   └── RemoteSkillsError   an MCP server that cannot be used
    ├── AgentError              the agent or what it runs on failed, or was used the wrong way
    │   ├── ToolFailure         a tool call failed: the model is told (`problems`)
    │   ├── SandboxError        a sandbox path refused or not there
    │   ├── StoreError          the session store, or a session id no store can keep
    │   │   └── SessionConflictError  another worker saved the session first
    │   └── ModelError          a model cannot be created or did not answer
    ├── ExportError             a skill cannot be exported as it is
    │   └── DestinationError    the export's folder cannot take the skills
    ├── LockFileError           the lock file is not one
    ├── PublishError            skills that cannot be published as they are
    └── HostedServiceError      a hosted skill service refused or cannot be reached
    SkillWarning (a UserWarning)  a skill accepted with a warning, or left out

`flue_runtime` exports the bases and the errors an application meets most; the errors page
(docs/reference/errors.md) is tested against this module. What only a build or the command line raises is in
`flue_build.errors`. The classes merged in 0.2 keep their names until 0.3 (`_MERGED`): each is the class that
carries its errors now, with a `DeprecationWarning`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

__all__ = [
    "AgentError",
    "ConfigError",
    "DestinationError",
    "FlueError",
    "ExportError",
    "HostedServiceError",
    "LockFileError",
    "ModelError",
    "MountError",
    "PublishError",
    "RemoteSkillsError",
    "SandboxError",
    "SessionConflictError",
    "SkillError",
    "SkillNotFoundError",
    "SkillPathError",
    "SkillVerificationError",
    "SkillWarning",
    "StoreError",
    "ToolFailure",
    "UnsafeFileError",
]

if TYPE_CHECKING:
    from pathlib import Path

    from flue_runtime.format.diagnostics import Diagnostic


class FlueError(Exception):
    """Base class of every error flue raises on purpose; `SkillError`, `MountError` and `AgentError` group
    most of them by what failed (build and command-line errors are in `flue_build.errors`)."""


class MountError(FlueError):
    """A skill that cannot be found, mounted or read, as opposed to one that breaks a rule (`SkillError`): a
    malformed spec, a damaged or changed bundle, a write under `/.flue/skills` (read-only), and the subclasses."""


class AgentError(FlueError):
    """The agent or what it runs on failed or was used the wrong way: a hook outside a render, a function that
    cannot become a tool, a schema the validator cannot honour, a page that does not fit a file, the model calling
    tools past the step limit; and the subclasses. The base of every error a harness raises besides skill problems."""


# --- the skill format ------------------------------------------------------------------


class SkillError(FlueError):
    """One or more problems in skills: `diagnostics` holds all of them, `source` what they are in (a call and its
    module, a `SkillSource`'s `describe()`), said first unless every problem's location starts with it.

    The message is one line naming the first problem and the count, because pip and other front ends often show
    only the last line of a failure; `reason` says it instead where no diagnostic does (a source that failed).
    """

    def __init__(self, diagnostics: Sequence[Diagnostic] = (), source: str = "", *, reason: str = "") -> None:
        self.diagnostics = tuple(diagnostics)
        self.source = source
        errors = [d for d in self.diagnostics if d.is_error] or list(self.diagnostics)
        named = bool(errors) and all(d.path.startswith(source) for d in self.diagnostics)
        head = f"{source}: " if source and not named else ""
        if reason or not errors:
            message = f"{source}: {reason}" if reason else f"{head}invalid skill"
        else:
            message = f"{head}{errors[0].location}: {errors[0].code} {errors[0].message}"
            if len(errors) > 1:
                message += f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})"
        super().__init__(message)

    @property
    def fields(self) -> dict[str, list[str]]:
        """The problems' messages by the argument or frontmatter field each is about ("?" for none)."""
        found: dict[str, list[str]] = {}
        for d in self.diagnostics:
            found.setdefault(d.field or "?", []).append(d.message)
        return found

    def report(self) -> str:
        """Every diagnostic, compiler style, with hints."""
        return "\n".join(d.format() for d in self.diagnostics)


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
    """A skill was accepted with a warning (a file skipped as noise, two names differing only in case), left out (a
    workspace skill, a remote one), or read unvetted (a package installed from a wheel built without the flue-skills
    hook: once per distribution and process); issued with `warnings.warn` where no report is printed. A warning,
    filtered with `warnings`, never caught as a `FlueError`."""


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


class SkillNotFoundError(MountError, LookupError):
    """What was asked for is not there: a spec naming nothing (not bundled, not on disk, no importable package, a
    package built without the hook), a skill its distribution does not export (`spec` as written, `exports` what
    the distribution does export), a clean path that is not one of a skill's files, or a skill name given to
    `prompt(..., activate=[...])` that no mounted skill has, or a disabled one's."""

    def __init__(self, message: str, spec: str = "", exports: Sequence[str] = ()) -> None:
        self.spec = spec
        self.exports = tuple(exports)
        super().__init__(message)


# --- the agent -------------------------------------------------------------------------


class ToolFailure(AgentError):
    """A tool call that failed in a way the model is told about (an error result): arguments that do not fit the
    tool's schema or its types, or a tool that raised it. `problems` lists what is wrong, one message each."""

    def __init__(self, *problems: object) -> None:
        self.problems = [str(problem) for problem in problems]
        super().__init__("; ".join(self.problems))


class SandboxError(AgentError):
    """A sandbox path that is refused or does not exist."""


class StoreError(AgentError):
    """The session store cannot be opened, read or written, or a session id is one no store can keep or no log can
    show as given: empty, too long, or holding a control character, a lone surrogate or another unprintable one."""


class SessionConflictError(StoreError):
    """Another worker saved the session while this turn ran; this turn was not saved.

    The session holds the other turn; prompting again runs on that fresh state."""


class ModelError(AgentError):
    """A model could not be created or did not answer, or a `ScriptedModel` was asked for more turns than it holds."""


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


#: The classes merged into another in 0.2 (issue 42), by the name of the class that carries their errors now:
#: importable until 0.3, with a DeprecationWarning, and still catching what they caught.
_MERGED: dict[str, type[Exception]] = {
    "BundleError": MountError,
    "ReadOnlyError": MountError,
    "SpecError": MountError,
    "MissingBuildHookError": SkillNotFoundError,
    "NotExportedError": SkillNotFoundError,
    "ResourceNotFoundError": SkillNotFoundError,
    "UnknownPackageError": SkillNotFoundError,
    "RemoteReplyTooLargeError": RemoteSkillsError,
    "SkillDefinitionError": SkillError,
    "SkillSourceError": SkillError,
    "HookError": AgentError,
    "LoopError": AgentError,
    "PageError": AgentError,
    "SchemaError": AgentError,
    "ToolDefinitionError": AgentError,
    "ToolArgumentError": ToolFailure,
    "SessionIdError": StoreError,
    "ScriptExhaustedError": ModelError,
    "MissingBuildHookWarning": SkillWarning,
    "WorkspaceSkillWarning": SkillWarning,
}


def _alias(module: str, merged: Mapping[str, type[Exception]], name: str) -> type[Exception]:
    """`merged[name]`, for a module's `__getattr__`: with a DeprecationWarning saying what it is now (its errors
    module's own `_MERGED`); an `AttributeError` for a name that never was."""
    if name not in merged:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new = merged[name]
    warnings.warn(
        f"{module}.{name} is {new.__name__} now: use it ({name} goes in 0.3)", DeprecationWarning, stacklevel=3
    )
    return new


def __getattr__(name: str) -> type[Exception]:
    return _alias(__name__, _MERGED, name)
