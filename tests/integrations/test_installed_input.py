"""Issue 20 item 4: everything read from an installed distribution is input.

The fixture project is built into a real wheel by hatchling with the hook and installed by pip; each
test then changes what was installed the way an attacker or a broken disk would (a manifest naming a
path, a deflate bomb, control characters in a description, a damaged deflate stream) and runs the
real command in a child process. Names and paths are re-checked by the build's rules before they are
used, sizes are bounded before anything is inflated, terminal output is escaped, and every failure
is one `error:` line (a `FlueError`), never a traceback.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from intsupport import PACKAGE, Installed
from support.tampered import MIB, bomb_wheel, damage_deflate, edit_manifest, rewrite_wheel

from flue_runtime.format.manifest import BUNDLE_DIR, MANIFEST_FILE, MANIFEST_LIMIT, SKILLS_DIR

pytestmark = pytest.mark.slow  # the fixture project built and installed (`installed`)

MANIFEST = f"{PACKAGE}/{BUNDLE_DIR}/{MANIFEST_FILE}"

#: Runs the CLI in this child and reports its own peak RSS (KiB on Linux) as the last line of stderr.
MEASURED = """
import json, resource, sys
from flue_build.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print(json.dumps({"code": code, "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}), file=sys.stderr)
"""


def flue(*args: str, pythonpath: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flue_build", *args],
        capture_output=True,
        text=True,
        env=Installed(pythonpath, pythonpath).env(),
        cwd=cwd,
        stdin=subprocess.DEVNULL,  # `mcp` on stdio ends at end of input
        timeout=300,
    )


def one_error_line(done: subprocess.CompletedProcess[str], command: str) -> str:
    """The failure was a single `flue-skills COMMAND: error:` line: no traceback of anything."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"flue-skills {command}: error: "), done.stderr
    return lines[0]


def refunds(manifest: dict[str, Any]) -> dict[str, Any]:
    [entry] = [e for e in manifest["skills"].values() if e["fields"]["name"] == "refunds"]
    return entry  # type: ignore[no-any-return]


def refunds_id(data: bytes) -> str:
    manifest = json.loads(data)
    [found] = [id for id, e in manifest["skills"].items() if e["fields"]["name"] == "refunds"]
    return found  # type: ignore[no-any-return]


def renamed(name: str) -> Callable[[dict[str, Any]], None]:
    def edit(manifest: dict[str, Any]) -> None:
        refunds(manifest)["fields"]["name"] = name

    return edit


def file_moved(old: str, new: str) -> Callable[[dict[str, Any]], None]:
    def edit(manifest: dict[str, Any]) -> None:
        entry = refunds(manifest)
        assert f"{old}\t" in entry["files"]
        entry["files"] = entry["files"].replace(f"{old}\t", f"{new}\t")

    return edit


def tampered_site(installed: Installed, dest: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    site = Path(shutil.copytree(installed.site, dest))
    manifest = site / MANIFEST
    manifest.write_bytes(edit_manifest(manifest.read_bytes(), edit))
    return site


def tampered_wheel(installed: Installed, dest: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    with zipfile.ZipFile(installed.wheel) as archive:
        data = archive.read(MANIFEST)
    return rewrite_wheel(installed.wheel, dest / installed.wheel.name, {MANIFEST: edit_manifest(data, edit)})


# --- names and paths -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../../escaped", "refunds/../../../escaped", "escaped\x1b[2J"])
def test_a_manifest_name_never_becomes_a_path(installed: Installed, tmp_path: Path, name: str) -> None:
    """`export` makes DEST/<name>: a name from a manifest is checked by the skill-name rule first."""
    site = tampered_site(installed, tmp_path / "site", renamed(name))
    work = tmp_path / "work"
    dest = work / "out" / "skills"
    dest.mkdir(parents=True)
    done = flue("export", PACKAGE, str(dest), pythonpath=site, cwd=work)
    line = one_error_line(done, "export")
    assert f"{PACKAGE}/{BUNDLE_DIR}/{MANIFEST_FILE}" in line and "field name" in line
    assert "\x1b" not in done.stderr
    assert not list(tmp_path.rglob("escaped*")), "a file was written outside DEST"
    assert list(dest.iterdir()) == []
    for command in (["ls", PACKAGE], ["mcp", PACKAGE]):
        one_error_line(flue(*command, pythonpath=site, cwd=work), command[0])


def test_a_file_path_that_leaves_its_skill_is_refused_wherever_it_is_read(installed: Installed, tmp_path: Path) -> None:
    edit = file_moved("policy.md", "../../policy.md")
    wheel = tampered_wheel(installed, tmp_path, edit)
    line = one_error_line(flue("ls", str(wheel), pythonpath=tmp_path, cwd=tmp_path), "ls")
    assert "'../../policy.md'" in line and "`..` segment" in line and MANIFEST in line
    site = tampered_site(installed, tmp_path / "site", edit)
    dest = tmp_path / "out"
    one_error_line(flue("export", PACKAGE, str(dest), pythonpath=site, cwd=tmp_path), "export")
    assert not dest.exists() or list(dest.iterdir()) == []
    assert not (tmp_path / "policy.md").exists()


# --- terminal output -------------------------------------------------------------------------------

HOSTILE_DESCRIPTION = "Refunds.\x1b]0;owned\x07\x1b[2J\x9b31m \u202egnp.exe\u202c\x7f end"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\x7f")


def test_ls_escapes_control_characters_from_a_manifest(installed: Installed, tmp_path: Path) -> None:
    def edit(manifest: dict[str, Any]) -> None:
        refunds(manifest)["fields"]["description"] = HOSTILE_DESCRIPTION

    wheel = tampered_wheel(installed, tmp_path, edit)
    text = flue("ls", str(wheel), pythonpath=tmp_path, cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert not [c for c in RAW if c in text.stdout], repr(text.stdout)
    assert "Refunds.\\x1b]0;owned\\x07\\x1b[2J\\x9b31m \\u202egnp.exe\\u202c\\x7f end" in text.stdout
    as_json = flue("ls", str(wheel), "--format", "json", pythonpath=tmp_path, cwd=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    assert not [c for c in RAW if c in as_json.stdout], repr(as_json.stdout)
    [listed] = [s for s in json.loads(as_json.stdout) if s["name"] == "refunds"]
    assert listed["description"] == HOSTILE_DESCRIPTION  # escaped for the terminal, the same string for JSON


# --- sizes -----------------------------------------------------------------------------------------

BOMB = 200 * MIB


@pytest.fixture(scope="module")
def bomb(installed: Installed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed wheel with a manifest member of a few hundred KB that inflates to 200 MiB."""
    folder = tmp_path_factory.mktemp("bomb")
    wheel = bomb_wheel(installed.wheel, folder / installed.wheel.name, MANIFEST, BOMB)
    assert wheel.stat().st_size < 2 * MIB
    return wheel


def measured(args: list[str], pythonpath: Path, cwd: Path) -> tuple[int, int, str]:
    """Exit status, peak RSS in MiB, and stderr (less the measurement) of `flue-skills ARGS` in a child."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *args],
        capture_output=True,
        text=True,
        env=Installed(pythonpath, pythonpath).env(),
        cwd=cwd,
        timeout=300,
    )
    *rest, last = done.stderr.strip().splitlines()
    report = json.loads(last)
    return report["code"], report["peak_kib"] // 1024, "\n".join(rest)


@pytest.mark.parametrize("where", ["a .whl file", "a zipped wheel on sys.path", "an installed folder"])
def test_a_manifest_bomb_is_refused_before_it_is_inflated(
    installed: Installed, bomb: Path, tmp_path: Path, where: str
) -> None:
    """`ls` of a manifest that inflates to 200 MiB: refused from its recorded size, memory flat.

    Measured against `ls` of the intact installation the same way (peak RSS of the child)."""
    if where == "a .whl file":
        good, bad = (["ls", str(installed.wheel)], tmp_path), (["ls", str(bomb)], tmp_path)
    elif where == "a zipped wheel on sys.path":
        good, bad = (["ls", PACKAGE], installed.wheel), (["ls", PACKAGE], bomb)
    else:
        site = Path(shutil.copytree(installed.site, tmp_path / "site"))
        with open(site / MANIFEST, "ab") as handle:  # sparse: 200 MiB on record, nothing written to disk
            handle.truncate(BOMB)
        good, bad = (["ls", PACKAGE], installed.site), (["ls", PACKAGE], site)
    code, baseline, err = measured(*good, tmp_path)
    assert code == 0, err
    code, peak, err = measured(*bad, tmp_path)
    assert code == 1, err
    assert "Traceback" not in err and f"over {MANIFEST_LIMIT:,}" in err, err
    assert peak - baseline < 64, f"ls took {peak} MiB, {peak - baseline} MiB more than listing the intact one"


# --- damaged archives ------------------------------------------------------------------------------


def test_a_damaged_deflate_member_is_a_flue_error_naming_it(installed: Installed, tmp_path: Path) -> None:
    with zipfile.ZipFile(installed.wheel) as archive:
        member = f"{PACKAGE}/{BUNDLE_DIR}/{SKILLS_DIR}/{refunds_id(archive.read(MANIFEST))}/policy.md"
    wheel = Path(shutil.copy(installed.wheel, tmp_path / installed.wheel.name))
    damage_deflate(wheel, member)

    read = subprocess.run(
        [
            sys.executable,
            "-c",
            "import skills_demo\n"
            "from flue_runtime.errors import FlueError\n"
            "try:\n"
            "    skills_demo.REFUNDS.read_bytes('policy.md')\n"
            "except FlueError as exc:\n"
            "    print(type(exc).__name__, exc)\n",
        ],
        capture_output=True,
        text=True,
        env=Installed(wheel, wheel).env(),
        cwd=tmp_path,
        timeout=120,
    )
    assert read.returncode == 0 and "Traceback" not in read.stderr, read.stderr
    assert read.stdout.startswith("MountError ") and member in read.stdout and "damaged" in read.stdout

    dest = tmp_path / "out"
    line = one_error_line(flue("export", PACKAGE, str(dest), pythonpath=wheel, cwd=tmp_path), "export")
    assert "policy.md" in line and "damaged" in line and str(wheel) in line
    assert not dest.exists() or list(dest.iterdir()) == []

    (tmp_path / "manifest").mkdir()
    damaged_manifest = Path(shutil.copy(installed.wheel, tmp_path / "manifest" / installed.wheel.name))
    damage_deflate(damaged_manifest, MANIFEST)
    line = one_error_line(flue("ls", str(damaged_manifest), pythonpath=tmp_path, cwd=tmp_path), "ls")
    assert MANIFEST in line and "damaged" in line
