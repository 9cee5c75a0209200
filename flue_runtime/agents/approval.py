"""Consent before a skill's script runs: the approval policies `Harness(approve_scripts=...)` takes.

`run_skill_script` runs a script only when the harness's policy approves the skill's exact content:
its identity (the name it is mounted under and its origin) and its digest (the content id of the
file list recorded when the skill was vetted, the very bytes the script runs from). A refusal is
the tool's result, saying which policy refused; it never raises into the loop.

- `bundled_only` (the default): the application's own skills run, as before consent existed (a
  bundle, a source folder in dev mode, `define_skill`); skills from elsewhere (a remote MCP server,
  any `SkillSource` mounted through `load_skill`) never do.
- `never`: no script runs.
- `ask(callback)`: `callback(request)` (sync or async, a `ScriptRequest`) says yes or no, once per
  skill identity and digest per session: the answer is kept with the session in its store, and asked
  again when the skill's content changes. `ask(callback, bundled=True)` runs the application's own
  skills without asking.
- Any `Callable[[ScriptRequest], bool]` is taken as `ask(callback)`.

Whatever the policy, a workspace skill's script never runs (its files sit in the sandbox, where the
model's `write` reaches), and a dev-mode skill whose folder lies inside the sandbox, or holds it, runs
only with `LocalSandbox(..., exec_skills_inside=True)`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from flue_runtime.mount.reference import Kind

__all__ = ["ApprovalPolicy", "Consent", "ScriptRequest", "approval_policy", "ask", "bundled_only", "never"]

#: The kinds the application ships itself.
OWN_KINDS: frozenset[str] = frozenset({"bundle", "folder", "defined"})


@dataclass(frozen=True)
class ScriptRequest:
    """A script the model asked to run: which skill (its identity and content digest), which script, with what."""

    session_id: str
    #: The skill's name as mounted.
    skill: str
    #: Where it comes from, in a few words (`SkillReference.origin`).
    origin: str
    #: The content id of the files recorded when the skill was vetted: what the script runs from.
    digest: str
    kind: Kind
    #: The script's path in the skill (`scripts/...`) and its arguments.
    script: str
    args: tuple[str, ...] = ()
    #: The key of the server that serves the skill (`mount.vfs.identity_of`), None for a skill of the application's.
    server: str | None = None

    @property
    def bundled(self) -> bool:
        """The application ships the skill itself: a bundle, a dev-mode folder or `define_skill`."""
        return self.kind in OWN_KINDS

    @property
    def key(self) -> str:
        """What an answer is remembered by in the session: the skill's identity (its name, origin and server, as
        SEP-2640 asks of persisted approvals: never the URI without the server) and digest."""
        key = f"{self.skill} {self.digest} {self.origin}"
        return key if self.server is None else f"{key} {self.server}"


Decide = Callable[[ScriptRequest], bool | Awaitable[bool]]


@dataclass(frozen=True)
class ApprovalPolicy:
    """Says whether a script may run. `name` is told to the model with a refusal; when `remembered`, each answer is
    kept with the session (by `ScriptRequest.key`) and `decide` is not asked again for that content; `own` runs the
    application's own skills (`ScriptRequest.bundled`) without asking `decide`."""

    name: str
    decide: Decide
    remembered: bool = False
    own: bool = False

    async def approves(self, request: ScriptRequest, answers: dict[str, bool]) -> bool:
        """The policy's answer for `request`; `answers`: the session's remembered ones (updated when remembered)."""
        if request.kind == "workspace":
            return False
        if self.own and request.bundled:
            return True
        if self.remembered and request.key in answers:
            return answers[request.key]
        answer = self.decide(request)
        if inspect.isawaitable(answer):
            answer = await answer
        approved = answer is True
        if self.remembered:
            answers[request.key] = approved
        return approved


def _never(request: ScriptRequest) -> bool:
    return False


def _own(request: ScriptRequest) -> bool:
    return request.bundled


#: No script runs.
never = ApprovalPolicy("never", _never)
#: The application's own skills run (bundles, dev-mode folders, `define_skill`); skills from elsewhere never do.
bundled_only = ApprovalPolicy("bundled_only", _own)


def ask(callback: Decide, *, bundled: bool = False, name: str = "ask") -> ApprovalPolicy:
    """Ask `callback` once per skill identity and digest per session (the answer is saved with the session; a
    changed skill is asked about again). `bundled=True`: the application's own skills run without asking.
    Only `True` approves; an exception from `callback` refuses the run (and is not remembered)."""
    if not callable(callback):
        raise TypeError(f"ask() takes a function of a ScriptRequest, not {type(callback).__name__}")
    return ApprovalPolicy(name, callback, remembered=True, own=bundled)


def approval_policy(chosen: ApprovalPolicy | Decide | None) -> ApprovalPolicy:
    """What `Harness(approve_scripts=...)` takes, as a policy: None is `bundled_only`, a plain callable `ask`."""
    if chosen is None:
        return bundled_only
    if isinstance(chosen, ApprovalPolicy):
        return chosen
    if callable(chosen):
        return ask(chosen)
    raise TypeError(
        "Harness(approve_scripts=...) takes a policy of flue_runtime.agents.approval (never, bundled_only, "
        f"ask(callback)) or a function of a ScriptRequest, not {type(chosen).__name__}"
    )


@dataclass(frozen=True)
class Consent:
    """What `run_skill_script` asks in one session: the harness's policy, and the session's remembered answers."""

    policy: ApprovalPolicy
    session_id: str
    answers: dict[str, bool]
