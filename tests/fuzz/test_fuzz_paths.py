"""Random paths against the path checks, the virtual tree and the sandbox: nothing escapes.

Documented error classes, the only exceptions each function may raise:

- `flue_runtime.format.paths.skill_path(path)`: `SkillPathError` (a `FlueError` and a `ValueError`).
- `SkillTree.read(path)` and `SkillReference.read_bytes(path)`: `SkillPathError` (not a
  clean path, or not under /.flue/skills) or `SkillNotFoundError` (a `FlueError` and a
  `LookupError`: a clean path that is not one of the mounted files). A disk skill in dev
  mode may also raise `SkillError` (the file changed into a link, a key, or vanished).
- A sandbox's `read_bytes(path)`: `SandboxError` (a `FlueError`); `LocalSandbox` also lets
  the OS's `OSError` through for a file that exists but cannot be read.
The model-facing tools turn each of these into an error result, never a traceback.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flue_runtime import define_skill
from flue_runtime.agents.sandbox import LocalSandbox, MemorySandbox
from flue_runtime.errors import FlueError, SandboxError, SkillPathError
from flue_runtime.format.paths import skill_path
from flue_runtime.mount.vfs import SkillTree

pytestmark = pytest.mark.slow  # hypothesis campaigns

PIECES = [
    "..",
    ".",
    "/",
    "\\",
    "%2e",
    "%2E",
    "%2f",
    "%5c",
    "%25",
    "%00",
    "\x00",
    "．",
    "／",
    "∕",
    "⁄",
    "﹒",
    "\u2024",
    "a",
    "b.md",
    "SKILL.md",
    "refunds",
    "vip",
    ".flue",
    "skills",
    "~",
    "C:",
    "//",
    " ",
    "\n",
    "é",
]
paths = st.lists(st.sampled_from(PIECES), max_size=12).map("".join) | st.text(max_size=40)

REFUNDS = define_skill(
    name="refunds", description="d", instructions="refunds body", files={"a/b.md": "inside", "b.md": "top"}
)
VIP = define_skill(name="vip", description="d", instructions="vip secret body")
TREE = SkillTree([REFUNDS, VIP])
ALLOWED = {f"refunds/{f.path}": REFUNDS.read_bytes(f.path) for f in REFUNDS.files} | {
    f"vip/{f.path}": VIP.read_bytes(f.path) for f in VIP.files
}


@given(paths)
def test_skill_path_accepts_only_clean_relative_paths(path: str) -> None:
    try:
        clean = skill_path(path)
    except SkillPathError:
        return
    assert clean == path
    segments = path.split("/")
    assert all(s not in ("", ".", "..") for s in segments)
    assert "\\" not in path and "\x00" not in path and not path.startswith("/")
    assert unicodedata.normalize("NFKC", path).count("/") == path.count("/")


@given(paths)
def test_virtual_tree_serves_only_mounted_files(path: str) -> None:
    full = "/.flue/skills/" + path
    try:
        data = TREE.read(full)
    except (FlueError, ValueError):
        return
    assert ALLOWED[path] == data


@given(paths)
def test_skill_reads_serve_only_the_skills_own_files(path: str) -> None:
    try:
        data = REFUNDS.read_bytes(path)
    except (FlueError, ValueError):
        return
    assert ALLOWED[f"refunds/{path}"] == data


@pytest.fixture(scope="module")
def local_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("sandbox")
    (base / "outside.txt").write_text("OUTSIDE")
    root = base / "root"
    (root / "dir").mkdir(parents=True)
    (root / "dir" / "inside.txt").write_text("inside")
    (root / "escape").symlink_to(base)
    return root


@given(paths)
def test_sandboxes_never_read_outside_their_root(local_root: Path, path: str) -> None:
    for sandbox in (LocalSandbox(local_root), MemorySandbox({"dir/inside.txt": "inside"})):
        try:
            data = sandbox.read_bytes(path)
        except (SandboxError, OSError):
            continue
        assert data == b"inside"
