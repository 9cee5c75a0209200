"""Consent before a skill's script runs: the approval policies `Harness(approve_scripts=...)` takes.

`run_skill_script` runs a script only when the harness's policy approves that script of the skill's exact
content: the skill's identity (the name it is mounted under, its origin and its server), its digest (the
content id of the file list recorded when the skill was vetted, the very bytes the script runs from) and the
script's path. A refusal is the tool's result, saying which policy refused; it never raises into the loop.

- `bundled_only` (the default): the application's own skills run, as before consent existed (a
  bundle, a source folder in dev mode, `define_skill`); skills from elsewhere (a remote MCP server,
  any `SkillSource` mounted through `load_skill`) never do.
- `never`: no script runs.
- `ask(callback)`: `callback(request)` (sync or async, a `ScriptRequest`) says yes or no, once per
  skill identity, digest and script per session: the answer covers that script with any arguments, for
  the session (kept with it in its store), never another script of the skill, and is asked again when
  the skill's content changes. An answer kept before answers named their script (issue 41: by skill
  and digest alone) approves nothing: its key is of another form, so the session is asked again.
  `ask(callback, bundled=True)` runs the application's own skills without asking.
- Any `Callable[[ScriptRequest], bool]` is taken as `ask(callback)`.

The same policy is asked before each call of an application's tool that runs code (`use_tool(...,
runs_code=True)`) while a skill from elsewhere (kind `source`) is active in the conversation, once per
such skill (`ScriptRequest.tool` names the tool; an answer covers that tool with any arguments, for the
session): what the skill's instructions make the model run is code the skill brought in.

Whatever the policy, a workspace skill's script never runs (its files sit in the sandbox, where the
model's `write` reaches), and a dev-mode skill whose folder lies inside the sandbox, or holds it, runs
only with `LocalSandbox(..., exec_skills_inside=True)`.

Reads across origins have a policy of their own, `Harness(approve_reads=...)` (below): `local_only`, `ask_reads`.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from flue_runtime.errors import AgentError
from flue_runtime.format.diagnostics import printable
from flue_runtime.mount.reference import Kind

__all__ = [
    "ActingOn",
    "ApprovalPolicy",
    "Consent",
    "ReadConsent",
    "ReadPolicy",
    "ReadRequest",
    "ScriptRequest",
    "approval_policy",
    "ask",
    "ask_reads",
    "bundled_only",
    "local_only",
    "never",
    "read_policy",
]

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
    #: The application's tool that runs code (`use_tool(..., runs_code=True)`), called while this skill from
    #: elsewhere is active: what is asked about instead of one of its scripts (`script` is then "", `args` the
    #: call's arguments as one JSON text). None for a script of the skill.
    tool: str | None = None

    @property
    def bundled(self) -> bool:
        """The application ships the skill itself: a bundle, a dev-mode folder or `define_skill`."""
        return self.kind in OWN_KINDS

    @property
    def key(self) -> str:
        """What an answer is remembered by in the session: the skill's identity (its name, origin and server, as
        SEP-2640 asks of persisted approvals: never the URI without the server), its digest and the script's path,
        never its arguments. A JSON list: no key kept before scripts were named (`name digest origin [server]`,
        starting with a skill name) can equal one. A code tool's call while the skill is active: by the tool's name."""
        kind, what = ("script", self.script) if self.tool is None else ("tool", self.tool)
        return json.dumps([kind, self.skill, self.digest, self.origin, self.server, what])

    def question(self) -> str:
        """What a person is asked, on one line, saying exactly what a yes covers (this script of this content, or
        this code tool while this content is active, with any arguments, for this session); built from escaped
        (`printable`) and bounded parts only, so no skill name, origin or argument can move the cursor, rewrite the
        line or hide what is asked."""
        name, origin, digest = (printable(part, _SHOWN) for part in (repr(self.skill), self.origin, self.digest))
        skill = f"skill {name} ({origin}, content {digest})"
        if self.tool is None:
            asked = f"run {printable(self.script, _SHOWN)} of {skill}"
            now = json.dumps(list(self.args), ensure_ascii=False)
        else:
            asked = f"let the application's tool {printable(repr(self.tool), _SHOWN)} run code while {skill} is active,"
            now = " ".join(self.args)
        return f"{asked} with any arguments, for this session? (asked now with {printable(now, _SHOWN)})"


#: How much of each part of a question is shown (a name, an origin, the arguments), in characters once escaped.
_SHOWN = 400


Decide = Callable[[ScriptRequest], bool | Awaitable[bool]]


@dataclass(frozen=True)
class ApprovalPolicy:
    """Says whether a script may run. `name` is told to the model with a refusal; when `remembered`, each answer is
    kept with the session (by `ScriptRequest.key`) and `decide` is not asked again for that script of that content;
    `own` runs the application's own skills (`ScriptRequest.bundled`) without asking `decide`."""

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
    """Ask `callback` once per skill identity, digest and script per session: the answer covers that script with
    any arguments for the session (saved with it), no other script; a changed skill is asked about again. `bundled=True`: the application's own skills run without asking.
    Only `True` approves; an exception from `callback` refuses the run (and is not remembered)."""
    if not callable(callback):
        raise AgentError(f"ask() takes a function of a ScriptRequest, not {type(callback).__name__}")
    return ApprovalPolicy(name, callback, remembered=True, own=bundled)


def approval_policy(chosen: ApprovalPolicy | Decide | None) -> ApprovalPolicy:
    """What `Harness(approve_scripts=...)` takes, as a policy: None is `bundled_only`, a plain callable `ask`."""
    if chosen is None:
        return bundled_only
    if isinstance(chosen, ApprovalPolicy):
        return chosen
    if callable(chosen):
        return ask(chosen)
    raise AgentError(
        "Harness(approve_scripts=...) takes a policy of flue_runtime.agents.approval (never, bundled_only, "
        f"ask(callback)) or a function of a ScriptRequest, not {type(chosen).__name__}"
    )


@dataclass(frozen=True)
class Consent:
    """What `run_skill_script` asks in one session: the harness's policy, and the session's remembered answers."""

    policy: ApprovalPolicy
    session_id: str
    answers: dict[str, bool]


# --- Reads across origins (issue 40 item 2): `Harness(approve_reads=...)` ------------------------------------------
#
# While the model acts on a remote skill (it activated a skill a server serves), a read of a file of a skill of
# another origin (another server's, or the application's own) brings that origin's content into a conversation the
# remote skill's instructions steer. Each such read, through `read_skill_resource` or the sandbox's `read`, is asked
# of the read policy at each call (never remembered: the Skills extension asks for consent per call), and refused
# unless it approves; the refusal is the tool's result, naming both servers. Reads of the acting skill's own origin,
# and every read before a remote skill was activated, are not asked about.
#
# - `local_only` (the default): the application's own skills are read; another server's skill never is.
# - `ask_reads(callback)`: `callback(request)` (sync or async, a `ReadRequest`) says yes or no, at every such read.
# - Any `Callable[[ReadRequest], bool]` is taken as `ask_reads(callback)`.


@dataclass(frozen=True)
class ActingOn:
    """A remote skill the model activated in the conversation: its name as mounted, its origin as shown, and the
    identity of its server (`mount.vfs.identity_of`)."""

    skill: str
    origin: str
    server: str


@dataclass(frozen=True)
class ReadRequest:
    """A read of a skill's file while the model acts on remote skills of another origin: what is read, from where,
    and the remote skills the model acts on (each naming its server)."""

    session_id: str
    #: The skill read, by the name it is mounted under, and its origin as shown.
    skill: str
    origin: str
    #: The identity of the server that serves the skill read; None for a skill of the application's own.
    server: str | None
    #: The file read, its path in the skill.
    path: str
    #: The activated remote skills of other origins than the skill read's.
    acting: tuple[ActingOn, ...]


ReadDecide = Callable[[ReadRequest], bool | Awaitable[bool]]


@dataclass(frozen=True)
class ReadPolicy:
    """Says whether a read across origins may happen; `name` is told to the model with a refusal."""

    name: str
    decide: ReadDecide

    async def approves(self, request: ReadRequest) -> bool:
        """The policy's answer for `request`: only `True` approves."""
        answer = self.decide(request)
        if inspect.isawaitable(answer):
            answer = await answer
        return answer is True


def _local(request: ReadRequest) -> bool:
    return request.server is None


#: The application's own skills are read while the model acts on a remote skill; another server's skill never is.
local_only = ReadPolicy("local_only", _local)


def ask_reads(callback: ReadDecide, *, name: str = "ask_reads") -> ReadPolicy:
    """Ask `callback` at every read across origins (never remembered). Only `True` approves; an exception from
    `callback` refuses the read."""
    if not callable(callback):
        raise AgentError(f"ask_reads() takes a function of a ReadRequest, not {type(callback).__name__}")
    return ReadPolicy(name, callback)


def read_policy(chosen: ReadPolicy | ReadDecide | None) -> ReadPolicy:
    """What `Harness(approve_reads=...)` takes, as a policy: None is `local_only`, a plain callable `ask_reads`."""
    if chosen is None:
        return local_only
    if isinstance(chosen, ReadPolicy):
        return chosen
    if callable(chosen):
        return ask_reads(chosen)
    raise AgentError(
        "Harness(approve_reads=...) takes a read policy of flue_runtime.agents.approval (local_only, "
        f"ask_reads(callback)) or a function of a ReadRequest, not {type(chosen).__name__}"
    )


@dataclass(frozen=True)
class ReadConsent:
    """What the read tools ask in one session: the harness's read policy, and the session's id."""

    policy: ReadPolicy
    session_id: str
