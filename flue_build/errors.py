"""The errors only a build or the `flue-skills` command raises; each is a `flue_runtime.FlueError`:

    FlueError
    ├── BuildError                a build stopped, after printing why
    ├── UsageError                an argument a command cannot act on, or a TARGET that names nothing (exit 2)
    ├── BackendNotInstalledError  the project's build backend is not installed where the command runs (exit 2)
    └── TargetError               what TARGET names cannot be used: no skills, unreadable, an agent that raised

They live here, not in `flue_runtime.errors`, because an installed agent never meets them; the
README's list of them is tested against this module. The classes merged in 0.2 keep their names until 0.3
(`_MERGED`), with a `DeprecationWarning`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from flue_runtime.errors import FlueError, _alias

if TYPE_CHECKING:
    from flue_runtime.format.diagnostics import Diagnostic

__all__ = [
    "BackendNotInstalledError",
    "BuildError",
    "TargetError",
    "UsageError",
]


class BuildError(FlueError):
    """A build that flue-skills stopped, after printing why; the message is the one-line summary.

    `diagnostics` holds the problems, when diagnostics were the cause. At the backend boundary
    (the hatchling hook, the setuptools commands) it becomes the hook process's exit status 1
    (`flue_build.backends.boundary`), so a front end shows no traceback of our frames.
    """

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.diagnostics = tuple(diagnostics)


# --- the command line ------------------------------------------------------------------


class UsageError(FlueError):
    """`flue-skills`: an argument the command cannot act on, found after parsing: a PATH that does not exist, a
    TARGET or MODULE:AGENT that names nothing the command takes (no such wheel, project folder, installed package or
    distribution, importable module or agent function), a skill name that breaks the rules, an option that needs
    another, an address it may not listen on."""


class BackendNotInstalledError(FlueError):
    """`flue-skills check`/`ls PROJECT` (and `eval`, `mcp`, `export` of a project): the project's build backend
    (hatchling, setuptools) is not importable here, and only it can say what the build would select; checking less
    would pass what the build refuses. `project` is the folder as shown, `backend` the missing module, `reason`
    the import's error; the message is `check`'s, `said_by(command)` another command's."""

    def __init__(self, project: str, backend: str, reason: str) -> None:
        self.project, self.backend, self.reason = project, backend, reason
        super().__init__(self.said_by("check"))

    def said_by(self, command: str) -> str:
        """The message in `command`'s words: what to install where it runs (`check` is run from a pre-commit hook)."""
        head = (
            f"{self.project} builds with {self.backend}, which is not installed here ({self.reason}): only "
            f"{self.backend} can say which files its build selects"
        )
        install = f"install it where {command} runs (`pip install {self.backend}`)"
        if command == "check":
            return f"{head}, so nothing was checked; {install}, as the pre-commit hook does, and check again"
        return f"{head}, so {command} read nothing of the project; {install} and run {command} again"


class TargetError(FlueError):
    """`flue-skills`: what TARGET names cannot be used: it ships no skills or cannot be read (`ls`), names two
    different skills with one name (`mcp`, `export`); an agent's module or function raised while it was imported or
    rendered."""


#: The classes merged into another in 0.2 (issue 42), by the name of the class that carries their errors now:
#: importable until 0.3, with a DeprecationWarning, and still catching what they caught.
_MERGED: dict[str, type[Exception]] = {
    "ListError": FlueError,
    "NotInstalledError": UsageError,
    "UnknownTargetError": UsageError,
}


def __getattr__(name: str) -> type[Exception]:
    return _alias(__name__, _MERGED, name)
