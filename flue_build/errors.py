"""The errors only a build or the `flue-skills` command raises; each is a `flue_runtime.FlueError`.

They live here, not in `flue_runtime.errors`, because an installed agent never meets them; the
README's list of them is tested against this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from flue_runtime.errors import FlueError

if TYPE_CHECKING:
    from flue_runtime.format.diagnostics import Diagnostic

__all__ = [
    "BackendNotInstalledError",
    "BuildError",
    "ListError",
    "NotInstalledError",
    "TargetError",
    "UnknownTargetError",
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
    """`flue-skills`: an argument the command cannot act on, found after parsing: a PATH that does not exist,
    a skill name that breaks the rules, an option that needs another, an address it may not listen on."""


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


class ListError(FlueError):
    """`flue-skills ls`: TARGET names nothing that ships skills, or cannot be read."""


class UnknownTargetError(ListError):
    """TARGET (or MODULE:AGENT) names nothing a command takes: no such wheel, project folder, installed
    package or distribution, importable module or agent function."""


class NotInstalledError(UnknownTargetError):
    """`flue-skills ls`: no installed package or distribution of that name."""


class TargetError(ListError):
    """`flue-skills mcp`/`export`: TARGET names no skills, or two different skills with one name; an agent's
    module or function raised while it was imported or rendered."""
