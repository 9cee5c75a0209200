"""Child process of the script benchmark: what one `run_skill_script` call costs around the script itself.

    python script_call.py WORK [--calls N]

A defined skill ships `scripts/hello.py` (prints one line). Each round times one call of
the tool (the verified copy checked, the supervisor started, the script run, every process
of it stopped and reaped, the result built) and, as the baseline, the same file of the
same copy run directly as a child process with its output piped, as the tool ran it before
the supervisor. The first call (which makes the copy) is not timed. Prints one JSON object:
tool_ms and direct_ms (every call).
"""

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

from flue_runtime import LocalSandbox, define_skill
from flue_runtime.agents.scripts import Scripts, cache_root, materialise
from flue_runtime.agents.skill_tools import MountedSkills


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("work")
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args()
    work = Path(args.work)
    (work / "sandbox").mkdir(parents=True, exist_ok=True)
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")
    skill = define_skill(
        name="hello", description="Says hello.", instructions="Run it.", files={"scripts/hello.py": "print('hello')\n"}
    )
    scripts = Scripts(MountedSkills([skill]), LocalSandbox(work / "sandbox", allow_exec=True))
    assert "hello" in await scripts.run("hello", "hello.py")  # makes the copy
    script = materialise(skill, cache_root()) / "scripts" / "hello.py"
    tool, direct = [], []
    for _ in range(args.calls):
        start = time.perf_counter()
        await scripts.run("hello", "hello.py")
        tool.append((time.perf_counter() - start) * 1e3)
        start = time.perf_counter()
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(script),
            cwd=work / "sandbox",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        await process.communicate()
        direct.append((time.perf_counter() - start) * 1e3)
    print(json.dumps({"tool_ms": tool, "direct_ms": direct}))


asyncio.run(main())
