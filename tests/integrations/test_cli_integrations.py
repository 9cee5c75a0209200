"""The `mcp` and `export` command lines: usage errors, a TARGET naming nothing and a missing extra exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flue_build.cli import _parser, main
from flue_runtime.mcp.http_guard import is_loopback


@pytest.mark.parametrize(
    ("given", "address"),
    [
        ("8000", ("127.0.0.1", 8000)),
        (":0", ("127.0.0.1", 0)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
        ("[::1]:9000", ("::1", 9000)),
    ],
)
def test_http_address_defaults_to_loopback(given: str, address: tuple[str, int]) -> None:
    assert _parser().parse_args(["mcp", "pkg", "--http", given]).http == address


@pytest.mark.parametrize("given", ["localhost:http", "127.0.0.1:70000", "127.0.0.1:"])
def test_a_bad_http_address_is_a_usage_error(given: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["mcp", "pkg", "--http", given])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and f"argument --http: {given!r}: " in err


def test_only_loopback_hosts_count_as_loopback() -> None:
    assert [is_loopback(h) for h in ("127.0.0.1", "127.8.0.1", "::1", "localhost")] == [True] * 4
    assert [is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.1", "example.org")] == [False] * 4


def test_a_target_naming_nothing_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "no_such_package_anywhere"]) == 2
    assert "flue-skills mcp: error: 'no_such_package_anywhere': no installed package" in capsys.readouterr().err


def test_mcp_without_the_sdk_says_what_to_install(tmp_path: Path) -> None:
    folder = tmp_path / "greet"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Greet people. Use when they say hello.\n---\nHi.\n"
    )
    code = f"import sys; sys.modules['mcp'] = None\nfrom flue_build.cli import main\nraise SystemExit(main(['mcp', {str(folder)!r}]))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert (
        "flue-skills mcp: error: flue_runtime.mcp needs the MCP Python SDK: pip install 'flue-skills[mcp]'"
        in run.stderr
    )
