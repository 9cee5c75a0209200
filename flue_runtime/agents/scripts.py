"""`run_skill_script`: run a script a mounted skill ships under `scripts/`; never a workspace skill's.

The skill's files are materialised once per content id into a private cache folder
outside the sandbox (`$XDG_CACHE_HOME/flue-skills/skills/<id>/<name>/`, else under
`~/.cache`; `<identity>-<id>` for a skill whose source has a server `identity`, a remote MCP
server's, so two servers' skills never share a copy, even of the same bytes): each checked against the verdict recorded when the skill was vetted (size and
SHA-256: a file rewritten since never runs), read-only, executable where the installed
package has the bit. Every run checks the copy again, so a changed copy is rebuilt, never
run. A skill mounted from a folder on disk (dev mode) that lies inside the sandbox, or holds
it, runs scripts only with `LocalSandbox(..., exec_skills_inside=True)`. Every run needs the
harness's approval policy to approve the skill's identity, digest and script (`agents.approval`): a
refusal is the tool's result, naming the policy. The script runs
with the sandbox folder as its working directory, a `.py` file under the current
interpreter, isolated (`-I`: neither the working folder, `PYTHONPATH` nor user site-packages on its
`sys.path`; and `write` never reaches where it loads code from at start-up, `disk_write.startup_places`),
anything else through its shebang, with a small environment (no API keys), a timeout, and output bounded to one tool result, under a supervisor
(`agents.supervisor`), in a cgroup of its own where the machine offers one, so that no
process of it is left running when the call returns.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import inspect
import json
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from flue_runtime.agents.approval import Consent, ScriptRequest, bundled_only
from flue_runtime.agents.disk_write import inside, overlap
from flue_runtime.agents.provenance import served
from flue_runtime.agents.reading import HINT_ROOM, MAX_BYTES, utf8_size
from flue_runtime.agents.sandbox import LocalSandbox, Sandbox
from flue_runtime.agents.skill_tools import SCRIPTS_DIR, MountedSkills
from flue_runtime.agents.supervisor import kill_cgroup, populated, remove_cgroup, script_cgroup
from flue_runtime.agents.tools import Tool, defined_tool
from flue_runtime.errors import FlueError, SkillPathError, ToolFailure
from flue_runtime.format.diagnostics import quoted
from flue_runtime.format.paths import skill_path, some_paths
from flue_runtime.format.records import PackedFile, content_id
from flue_runtime.mount.reference import SkillReference
from flue_runtime.mount.vfs import checked_identity, identity_of

__all__ = [
    "KEPT_ENVIRONMENT",
    "KILL_WAIT",
    "OUTPUT_GRACE",
    "RUN_SKILL_SCRIPT",
    "STOP_GRACE",
    "Scripts",
    "cache_root",
    "cannot_run",
    "cannot_run_warning",
    "exec_root",
    "forget_copies",
    "guarded",
    "materialise",
    "run_script",
]


RUN_SKILL_SCRIPT: dict[str, Any] = {
    "name": "run_skill_script",
    "description": (
        "Run a script that a skill ships in its scripts/ folder, when the skill's instructions call for it. "
        "It runs with the sandbox folder as working directory (.py files under Python) and returns the exit "
        "status and the output (at most 50 KB)."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "skill": {"type": "string", "description": "the skill's name"},
            "script": {"type": "string", "description": "the script's path in the skill, e.g. scripts/extract.py"},
            "args": {"type": "array", "items": {"type": "string"}, "description": "command-line arguments"},
            "stdin": {"type": "string", "description": "text for the script's standard input"},
        },
        "required": ["skill", "script"],
        "additionalProperties": False,
    },
}
#: The environment variables a script keeps; everything else (API keys included) stays out.
KEPT_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM")
_CHUNK = 64 * 1024
#: Seconds a supervisor told to stop has to kill what the script started, before its session is killed outright.
STOP_GRACE = 10.0
#: Seconds to wait for processes to end once they were sent SIGKILL (one in uninterruptible sleep may take longer).
KILL_WAIT = 5.0
#: Seconds the output is still read once the supervisor has exited: what the pipes still hold comes at once, and a
#: pipe still open is held by a process that escaped every mechanism.
OUTPUT_GRACE = 1.0


#: How a `.py` script runs, under `python -I -c`: an isolated interpreter (no `PYTHON*` variables, no user
#: site-packages, not the working folder on `sys.path`), with the script's own folder of the verified copy on
#: `sys.path` as a script run by path has it, so it still imports its sibling modules.
_AS_SCRIPT = (
    "import os, pathlib, sys; sys.argv[:] = sys.argv[1:]; __file__ = sys.argv[0]; "
    "sys.path.insert(0, os.path.dirname(__file__)); "
    "exec(compile(pathlib.Path(__file__).read_bytes(), __file__, 'exec'))"
)


def exec_root(sandbox: Sandbox | None) -> LocalSandbox | None:
    """The sandbox when scripts may run in it."""
    return sandbox if isinstance(sandbox, LocalSandbox) and sandbox.allow_exec else None


def cannot_run(skills: MountedSkills, sandbox: Sandbox | None) -> list[str]:
    """The skills the application mounted whose scripts cannot run where the agent runs: no sandbox allows it."""
    return [] if exec_root(sandbox) is not None else skills.with_scripts


def cannot_run_warning(names: Sequence[str]) -> str:
    """What the developer is told once about skills whose scripts cannot run (`cannot_run`)."""
    which = ", ".join(repr(name) for name in names)
    skills = f"skill {which} ships" if len(names) == 1 else f"skills {which} ship"
    return (
        f"{skills} scripts, but no script can run here: the agent has no sandbox that allows execution, so "
        "run_skill_script is not offered and the model can only read them; to let them run, give the agent "
        "LocalSandbox(path, allow_exec=True) (Harness(..., sandbox=...) or use_sandbox)"
    )


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "flue-skills", "skills")


class Scripts:
    """`run_skill_script` over the skills of `skills` and a sandbox that may allow execution; `consent`: the policy
    asked before each run and the session's remembered answers (None: `bundled_only`, nothing remembered)."""

    def __init__(self, skills: MountedSkills, sandbox: Sandbox | None, consent: Consent | None = None) -> None:
        self.skills = skills
        self.sandbox = exec_root(sandbox)
        self.consent = consent or Consent(bundled_only, "", {})

    def tool(self) -> Tool:
        return defined_tool(RUN_SKILL_SCRIPT, self.run)

    async def run(self, skill: str, script: str, args: list[str] | None = None, stdin: str | None = None) -> str:
        sandbox = self.sandbox
        if sandbox is None:
            raise ToolFailure("scripts cannot run now: the agent's sandbox does not allow it")
        mounted = self.skills.get(skill)
        if mounted is None:
            raise ToolFailure(f"there is no skill named {quoted(skill)}; {self._with_scripts()}")
        if mounted.workspace_folder is not None:
            # Its files are in the sandbox, where the model's `write` reaches: running them would run what it wrote.
            raise ToolFailure(
                f"{skill!r} is a workspace skill: its scripts are not run, not approved by any policy (they sit in "
                "the sandbox, which the model can write); only skills the application mounts run scripts"
            )
        if not any(f.path.startswith(SCRIPTS_DIR) for f in mounted.skill.verdict):
            raise ToolFailure(f"skill {skill!r} ships no scripts; {self._with_scripts()}")
        path = _script_path(mounted.skill, script)
        folder = mounted.skill.folder
        if folder is not None and not sandbox.exec_skills_inside and overlap(folder, sandbox.root):
            raise ToolFailure(
                f"{skill!r} is read from {folder}, and the sandbox {sandbox.root} "
                f"{'lies inside it' if inside(sandbox.root, [folder]) else 'holds it'}, where the model works: its "
                "scripts run only if the application says so, with LocalSandbox(..., allow_exec=True, "
                "exec_skills_inside=True)"
            )
        await self._approved(mounted.skill, path, args or [])
        root = cache_root()
        if root.resolve() == sandbox.root or sandbox.root in root.resolve().parents:
            raise ToolFailure(
                f"the script cache {root} is inside the sandbox; set XDG_CACHE_HOME to a folder outside it"
            )
        try:
            copy = await asyncio.to_thread(materialise, mounted.skill, root)
        except (FlueError, OSError) as exc:
            raise ToolFailure(f"cannot prepare skill {skill!r} to run {path}: {exc}") from exc
        served("script", mounted.skill, path)
        return await run_script(copy, path, args or [], stdin, sandbox.root, sandbox.exec_timeout)

    async def _approved(self, skill: SkillReference, path: str, args: list[str]) -> None:
        """Ask the approval policy about this script of this skill's content; `ToolFailure` (the model is told)
        unless it approves."""
        request = _request(self.consent, skill, script=path, args=tuple(args))
        await _consented(self.consent, request, f"{path} of skill {skill.name!r}")

    def _with_scripts(self) -> str:
        """Which skills a script can run from (what a model that named another should use)."""
        names = [
            m.skill.name
            for m in self.skills.mounted
            if m.workspace_folder is None and any(f.path.startswith(SCRIPTS_DIR) for f in m.skill.verdict)
        ]
        return f"skills with scripts: {some_paths(names)}"


def _request(consent: Consent, skill: SkillReference, **asked: Any) -> ScriptRequest:
    """What the approval policy is asked about `skill` (`asked`: the script and its arguments, or a code tool)."""
    return ScriptRequest(
        consent.session_id,
        skill.name,
        skill.origin,
        content_id(skill.verdict),
        skill.source.kind,
        server=identity_of(skill),
        **asked,
    )


async def _consented(consent: Consent, request: ScriptRequest, what: str) -> None:
    """Nothing, when the policy approves `request`; else `ToolFailure` saying `what` was not run and why."""
    policy = consent.policy
    try:
        approved = await policy.approves(request, consent.answers)
    except Exception as exc:  # the application's callback failed: nothing runs, the loop goes on
        raise ToolFailure(
            f"{what} was not run: the approval policy {policy.name!r} failed ({type(exc).__name__}: {exc}), so it "
            "was not approved"
        ) from None
    if not approved:
        raise ToolFailure(
            f"{what} was not run: not approved by the application's script approval policy {policy.name!r} "
            f"({request.origin}, content {request.digest}); do not retry it, answer without it"
        )


# --- the application's tools that run code ----------------------------------------------------------


def guarded(tool: Tool, skills: MountedSkills, consent: Consent | None) -> Tool:
    """`tool`, when it runs code (`Tool.runs_code`), asking the approval policy before each call while a skill from
    elsewhere (a remote MCP server's, any `load_skill` source's: kind `source`) is active in the conversation, once
    per such skill, naming the tool, the skill and its server (`ScriptRequest.tool`); any other tool as it is."""
    if not tool.runs_code:
        return tool
    asked = consent or Consent(bundled_only, "", {})

    async def call(**arguments: Any) -> Any:
        shown = {key: value for key, value in arguments.items() if key != tool.context}
        text = json.dumps(shown, ensure_ascii=False, default=str)
        for name in skills.activated():
            mounted = skills.get(name)
            if mounted is None or mounted.workspace_folder is not None or mounted.skill.source.kind != "source":
                continue
            skill = mounted.skill
            request = _request(asked, skill, script="", args=(text,), tool=tool.name)
            await _consented(asked, request, f"{tool.name} (it runs code; skill {name!r} ({skill.origin}) is active)")
        result = tool.function(**arguments)
        return await result if inspect.isawaitable(result) else result

    return replace(tool, function=call)


def _script_path(skill: SkillReference, script: str) -> str:
    scripts = sorted(f.path for f in skill.verdict if f.path.startswith(SCRIPTS_DIR))
    try:
        path = skill_path(script)
    except SkillPathError as exc:
        raise ToolFailure(
            str(SkillPathError(script, exc.reason, f"use one of its scripts, like {scripts[0]!r}"))
        ) from exc
    if not path.startswith(SCRIPTS_DIR):
        path = SCRIPTS_DIR + path
    if path not in scripts:
        raise ToolFailure(f"skill {skill.name!r} has no script {path!r}; its scripts: {some_paths(scripts)}")
    return path


# --- the verified copy ------------------------------------------------------------------------------


def materialise(skill: SkillReference, root: Path) -> Path:
    """The folder holding a read-only copy of `skill`'s files whose bytes match its verdict (made once per content id,
    and per server for a source with an `identity`: `<identity>-<content id>`, as SEP-2640 asks of every path where
    a remote skill's files are materialized).

    The verdict is the file list recorded when the skill was vetted (`SkillReference.verdict`):
    a file whose bytes differ now (rewritten since) fails the copy, so it never runs.
    """
    files = skill.verdict
    modes = {f.path: 0o555 if skill.is_executable(f.path) else 0o444 for f in files}
    final = root / _folder_name(skill, content_id(files))
    folder = final / skill.name
    if final.exists():
        if _intact(folder, files, modes):
            return folder
        _remove(final)  # changed after it was made: never run it, make it again
    root.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    root.mkdir(mode=0o700, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=root))
    try:
        for entry in files:
            data = skill.read_bytes(entry.path)
            if not entry.matches(data):
                raise FlueError(
                    f"{entry.path} differs from what was vetted (changed since the skill was resolved); nothing ran: "
                    "resolve the skill again to vet the new bytes"
                )
            target = staging.joinpath(skill.name, *entry.path.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            os.chmod(target, modes[entry.path])
        for current, _, _ in sorted(os.walk(staging), reverse=True):  # deepest first: a sealed folder takes no files
            os.chmod(current, 0o555)
        try:
            os.rename(staging, final)
        except OSError:
            if not final.exists():
                raise
            # Another session made it first: use theirs (checked below).
    finally:
        if staging.exists():
            _remove(staging)
    if not _intact(folder, files, modes):
        raise FlueError(f"the copy at {folder} does not match the skill's file list")
    return folder


def _folder_name(skill: SkillReference, id: str) -> str:
    """The copy's folder: the content id, after the source's server identity when it has one."""
    identity = identity_of(skill)
    return id if identity is None else f"{identity}-{id}"


def forget_copies(identity: str) -> int:
    """Remove the verified copies of every skill of the server `identity` from the cache folder (those `materialise`
    made, `<identity>-<content id>`, and any it is making), for a host forgetting that server (SEP-2640: hosts SHOULD
    remove a server's cached skill content when the user removes the server); how many copies were removed. Copies
    of other servers' skills and of the application's own stay."""
    key = checked_identity(identity)
    made = re.compile(rf"{re.escape(key)}-[0-9a-f]{{16}}|\.{re.escape(key)}-[0-9a-f]{{16}}-[a-z0-9_]{{8}}")
    root = cache_root()
    try:
        names = sorted(os.listdir(root))
    except FileNotFoundError:
        return 0
    removed = 0
    for name in names:
        if made.fullmatch(name):
            _remove(root / name)
            removed += not name.startswith(".")
    return removed


def _intact(folder: Path, files: tuple[PackedFile, ...], modes: dict[str, int]) -> bool:
    """Exactly `files`, as regular read-only files with their sizes, hashes and executable bits."""
    expected = {f.path: f for f in files}
    found = 0
    for current, dirs, names in os.walk(folder):
        for name in dirs:
            if stat.S_ISLNK(os.lstat(os.path.join(current, name)).st_mode):
                return False
        for name in names:
            full = os.path.join(current, name)
            entry = expected.get(os.path.relpath(full, folder).replace(os.sep, "/"))
            info = os.lstat(full)
            if entry is None or not stat.S_ISREG(info.st_mode) or info.st_size != entry.size:
                return False
            if stat.S_IMODE(info.st_mode) & 0o333 != modes[entry.path] & 0o333:
                return False  # writable, or an executable bit added or lost
            with open(full, "rb") as handle:
                if hashlib.file_digest(handle, "sha256").hexdigest() != entry.sha256:
                    return False
            found += 1
    return found == len(expected)


def _remove(path: Path) -> None:
    for current, _, _ in os.walk(path):
        os.chmod(current, 0o700)
    shutil.rmtree(path)


# --- running ----------------------------------------------------------------------------------------


async def run_script(folder: Path, script: str, args: list[str], stdin: str | None, cwd: Path, timeout: float) -> str:
    """Run `script` of the copy at `folder` in `cwd`, under the supervisor; the exit status and the output, bounded.

    The supervisor (`agents.supervisor`) runs in a session of its own, the script in a cgroup of
    its own where the machine offers one, and outlives every process the script starts: when it
    has exited and the cgroup is empty, none of them is left. Every wait is bounded: the script's
    by `timeout`, those after a kill by `STOP_GRACE` and `KILL_WAIT`, reading the output once
    the supervisor has exited by `OUTPUT_GRACE`.
    """
    full = folder.joinpath(*script.split("/"))
    if script.endswith(".py"):
        argv = [sys.executable, "-I", "-c", _AS_SCRIPT, str(full), *args]
    elif os.access(full, os.X_OK):
        argv = [str(full), *args]
    else:
        raise ToolFailure(
            f"{script} is not executable: its package did not keep an executable bit for it "
            "(a .py script runs under Python; any other needs the bit, set before the build)"
        )
    env = {key: os.environ[key] for key in KEPT_ENVIRONMENT if key in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(PYTHONDONTWRITEBYTECODE="1", FLUE_SKILL_DIR=str(folder))
    budget = (MAX_BYTES - HINT_ROOM) // 2
    out, err = _Capture(budget), _Capture(budget)
    cgroup = script_cgroup()
    try:
        report, report_end = os.pipe()
        try:
            try:
                transport, watch = await asyncio.get_running_loop().subprocess_exec(
                    lambda: _Watch(out, err),
                    sys.executable,
                    "-I",
                    "-S",
                    "-c",
                    _supervisor_source(),
                    str(report_end),
                    cgroup or "-",
                    *argv,
                    cwd=cwd,
                    env=env,
                    stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    pass_fds=(report_end,),
                    start_new_session=True,  # its own session: nothing of it shares the agent's process group
                )
            finally:
                os.close(report_end)
            try:
                finished, complete = await _supervised(transport, watch, stdin, timeout, cgroup)
            finally:
                transport.close()  # reading stops here, whoever still holds the pipes
            outcome = _read_report(report)
        finally:
            os.close(report)
    finally:
        if cgroup is not None and os.path.exists(cgroup):  # the call failed before its end: no wait
            kill_cgroup(cgroup)
            remove_cgroup(cgroup)
    if not finished:
        return _result(f"none: timed out after {timeout:g} s, and was stopped", outcome, out, err, complete)
    kind, _, rest = outcome.partition(" ")
    if kind == "exec":
        code = int(rest or 0)
        raise ToolFailure(f"cannot run {script}: {os.strerror(code) if code else 'it could not be started'}")
    if kind != "exit":
        said = f"reported {outcome!r}" if outcome else "ended without a report: something killed it"
        raise ToolFailure(f"{script} could not be watched to its end (its supervisor {said})")
    wait_status, _, _ = rest.partition(" ")
    return _result(_status(os.waitstatus_to_exitcode(int(wait_status))), outcome, out, err, complete)


class _Watch(asyncio.SubprocessProtocol):
    """The supervisor's output into two captures, and futures for its exit and for the end of its output.

    Not asyncio's `Process`: its `wait()` (Python 3.11) waits for the pipes to close as well as
    for the exit, so a process that escaped and holds them would hold the call forever.
    """

    def __init__(self, out: _Capture, err: _Capture) -> None:
        loop = asyncio.get_running_loop()
        self.captures = {1: out, 2: err}
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()  # stdout and stderr at their end
        self.open = {1, 2}

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        self.captures[fd].add(data.encode() if isinstance(data, str) else data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.open.discard(fd)
        if not self.open and not self.closed.done():
            self.closed.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


async def _supervised(
    transport: asyncio.SubprocessTransport, watch: _Watch, stdin: str | None, timeout: float, cgroup: str | None
) -> tuple[bool, bool]:
    """Feed the supervisor and read its output until it exits (True), or until it was stopped at the timeout
    (False); and whether its output was read to the end.

    At the timeout, or when the call is cancelled, the supervisor is told to stop (SIGTERM): it
    kills the script and everything it started, then exits. Only if it does not, the cgroup
    and its whole session are killed outright. Then whatever is left in the cgroup is killed.
    """
    _feed(transport, stdin)
    try:
        finished = await _until(watch.exited, timeout)
        if not finished:
            await _stop(transport, watch, cgroup)
        await _clear(cgroup)
    except asyncio.CancelledError:
        await _stop(transport, watch, cgroup)  # the call ends only once nothing of the script is left
        await _clear(cgroup)
        raise
    # Every process of the script is gone: what is left in the pipes comes at once, unless one escaped with them.
    return finished, await _until(watch.closed, OUTPUT_GRACE)


async def _until(future: asyncio.Future[None], seconds: float) -> bool:
    """Wait at most `seconds` for `future` (never cancelled); whether it is done."""
    done, _ = await asyncio.wait([future], timeout=max(0.0, seconds))
    return bool(done)


async def _stop(transport: asyncio.SubprocessTransport, watch: _Watch, cgroup: str | None) -> None:
    _signal(transport, signal.SIGTERM)
    if await _until(watch.exited, STOP_GRACE):
        return
    if cgroup is not None:
        kill_cgroup(cgroup)
    try:
        os.killpg(transport.get_pid(), signal.SIGKILL)
    except OSError:
        pass
    await _until(watch.exited, KILL_WAIT)  # one in uninterruptible sleep may take longer: not waited for


async def _clear(cgroup: str | None) -> None:
    """Kill what is left in the script's cgroup (a supervisor that was killed itself left all it started), wait until
    nothing runs there (at most `KILL_WAIT`), and remove it."""
    if cgroup is None:
        return
    loop = asyncio.get_running_loop()
    end = loop.time() + KILL_WAIT
    while populated(cgroup) and loop.time() < end:
        kill_cgroup(cgroup)
        await asyncio.sleep(0.002)
    remove_cgroup(cgroup)


def _signal(transport: asyncio.SubprocessTransport, signum: int) -> None:
    if transport.get_returncode() is None:
        try:
            transport.send_signal(signum)
        except ProcessLookupError:
            pass


def _read_report(fd: int) -> str:
    """The supervisor's one line (it has exited: the pipe holds all it wrote)."""
    os.set_blocking(fd, False)
    data = b""
    try:
        while chunk := os.read(fd, 256):
            data += chunk
    except BlockingIOError:
        pass
    return data.decode("ascii", "replace").strip()


def _result(status: str, outcome: str, out: _Capture, err: _Capture, complete: bool) -> str:
    kind, *fields = outcome.split(" ")
    left = fields[-2] if kind in ("exit", "stopped") and len(fields) >= 2 else ""
    if left.isdigit() and int(left):
        count = int(left)
        status += (
            f"; stopped {count} process{'es' if count != 1 else ''} it started that "
            f"{'were' if count != 1 else 'was'} still running"
        )
    if not complete:
        status += f"; a process out of reach still held its output open, read until {OUTPUT_GRACE:g} s after the end"
    return "\n".join([f"exit status: {status}", out.section("stdout"), err.section("stderr")])


@functools.cache
def _supervisor_source() -> str:
    """The supervisor's code, run with `python -I -S -c`: from its module's loader, in a folder or a zip alike."""
    from flue_runtime.agents import supervisor

    loader = supervisor.__spec__.loader if supervisor.__spec__ else None
    source = loader.get_source(supervisor.__name__) if loader is not None and hasattr(loader, "get_source") else None
    if not source:
        raise ToolFailure("cannot run scripts: the source of flue_runtime.agents.supervisor is not installed")
    return str(source)


def _feed(transport: asyncio.SubprocessTransport, stdin: str | None) -> None:
    """Write `stdin` to the script and close it; a script that does not read it all only loses the rest."""
    pipe = transport.get_pipe_transport(0)
    if stdin is not None and isinstance(pipe, asyncio.WriteTransport):
        pipe.write(stdin.encode("utf-8"))
        pipe.close()  # once the buffer is written


def _status(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"killed by signal {-code}"
    return str(code)


class _Capture:
    """The first and last bytes of a stream, within `budget`, and how many there were."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.budget // 2 - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[: -(self.budget // 2)]

    def section(self, name: str) -> str:
        if not self.total:
            return f"--- {name}: empty ---"
        left_out = self.total - len(self.head) - len(self.tail)
        if not left_out:
            return f"--- {name} ---\n{_fit(self.head + self.tail, self.budget)}"
        half = self.budget // 2
        return (
            f"--- {name} ({self.total:,} bytes; the first and last {half:,} shown) ---\n"
            f"{_fit(self.head, half)}\n[... {left_out:,} bytes left out ...]\n{_fit(self.tail, half)}"
        )


def _fit(data: bytes | bytearray, budget: int) -> str:
    """`data` as text (undecodable bytes as U+FFFD, one final line break dropped), cut to `budget` bytes of UTF-8."""
    text = bytes(data).decode("utf-8", "replace").removesuffix("\n")
    if utf8_size(text) > budget:
        text = text.encode("utf-8")[:budget].decode("utf-8", "ignore")
    return text
