"""Build this example's wheel, install it into a fresh virtual environment, run a conversation.

    python examples/support-agent/run.py                      # scripted model, offline
    python examples/support-agent/run.py --model anthropic/claude-haiku-4-5

It does what a user's machine would: builds flue-skills and hatch-flue-skills as wheels
(standing in for the released ones), builds the agent's wheel in an isolated build
environment that gets them through PIP_FIND_LINKS, installs the wheel into a new venv,
and runs `python -m support_agent` there. It needs only flue-skills and hatch-flue-skills
installed (the README's first command): pip builds the wheels.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

from flue_runtime.models import ModelError, check_api_key

EXAMPLE = Path(__file__).resolve().parent
ROOT = EXAMPLE.parent.parent


def step(title: str, command: list[str], env: dict[str, str] | None = None) -> None:
    """Run a setup command quietly; show its output only if it fails."""
    print(f"--- {title}", flush=True)
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
        raise SystemExit(f"failed: {' '.join(command)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="provider/model for a real provider; its API key must be set")
    args = parser.parse_args()
    if args.model:
        try:
            check_api_key(args.model)  # before a minute of building, not after it
        except ModelError as exc:
            print(f"{parser.prog}: error: {exc}", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="support-agent-") as folder:
        work = Path(folder)
        wheels, dist, env_dir = work / "wheels", work / "dist", work / "venv"
        # Ours with the hatchling the hook brought along; the agent's in an isolated environment, as any user's.
        pip_wheel = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps"]
        build = [*pip_wheel, "--no-build-isolation", "--wheel-dir", str(wheels)]
        for project in (ROOT, ROOT / "hatch_plugin"):
            name = "hatch-flue-skills" if project.name == "hatch_plugin" else "flue-skills"
            step(f"build the {name} wheel", [*build, str(project)])
        isolated = {**os.environ, "PIP_FIND_LINKS": str(wheels)}
        step(
            "build the support-agent wheel (isolated, with the flue-skills hook)",
            [*pip_wheel, "--wheel-dir", str(dist), str(EXAMPLE)],
            isolated,
        )
        [wheel] = dist.glob("*.whl")
        # No pip of its own (seeding one costs seconds): this pip installs into it.
        venv.EnvBuilder().create(env_dir)
        python = str(env_dir / "bin" / "python")
        extra = [f"{wheel}[{args.model.split('/')[0]}]"] if args.model else [str(wheel)]
        step(
            f"install {wheel.name} into a fresh virtual environment",
            [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--find-links", str(wheels), *extra],
        )
        print("--- run a conversation\n", flush=True)
        command = [python, "-m", "support_agent"] + (["--model", args.model] if args.model else [])
        return subprocess.run(command, cwd=work).returncode


if __name__ == "__main__":
    raise SystemExit(main())
