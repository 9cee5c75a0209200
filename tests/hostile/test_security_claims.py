"""SECURITY.md's smaller claims, each checked here where no other test checks it."""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_support import run
from support.hostile import planted
from support.projects import write_skill

from flue_runtime import LocalSandbox, SkillError
from flue_runtime.errors import SandboxError
from flue_runtime.format.diagnostics import diagnostic
from flue_runtime.format.skill_folder import vet_skill
from flue_runtime.mount.disk import load_skill_dir


def claim_skill(folder: Path, files: dict[str, str | bytes] | None = None) -> Path:
    return write_skill(folder, "Claims.", "Body.\n", files)


def codes(folder: Path, **kwargs: object) -> dict[str, str]:
    return {d.path: d.code for d in vet_skill(folder, display="s", **kwargs).diagnostics}  # type: ignore[arg-type]


def test_pgp_private_key_blocks_are_refused_whatever_the_name(tmp_path: Path) -> None:
    block = planted.real_keys()["pgp block"].encode()
    skill = claim_skill(tmp_path / "keys", {"notes.txt": block})
    assert codes(skill) == {"s/notes.txt": "FLU303"}


def test_secret_folders_are_matched_without_case_and_can_be_allowed(tmp_path: Path) -> None:
    skill = claim_skill(tmp_path / "creds", {".SSH/config": b"Host x\n", ".Aws/credentials": b"[default]\n"})
    assert codes(skill) == {"s/.SSH": "FLU302", "s/.Aws": "FLU302"}
    assert codes(skill, allow=[skill / ".SSH"]) == {"s/.Aws": "FLU302"}


def test_a_name_cannot_add_lines_or_terminal_escapes_to_a_report() -> None:
    shown = diagnostic("FLU309", "s/evil\n\x1b[31mname\t\udcff.md", problem="a \x1b]52;c;x\x07 line\nbreak").format()
    assert shown.splitlines()[0] == (
        "s/evil\\n\\x1b[31mname\\t\\xff.md: FLU309 error: name refused (a \\x1b]52;c;x\\x07 line\\nbreak): no path "
        "to it could ever be read at run time"
    )
    shown.encode("utf-8")  # nothing left that cannot be written


def test_dev_mode_refuses_a_key_added_after_loading(tmp_path: Path) -> None:
    skill = load_skill_dir(claim_skill(tmp_path / "later", {"notes.md": b"fine\n"}))
    assert skill.read_text("notes.md") == "fine\n"
    (tmp_path / "later" / "notes.md").write_text(planted.shaped_pem(random.Random(1), "EC PRIVATE KEY"))
    with pytest.raises(SkillError, match="FLU303"):
        skill.read_bytes("notes.md")


def test_dev_mode_refuses_a_token_added_after_loading(tmp_path: Path) -> None:
    skill = load_skill_dir(claim_skill(tmp_path / "later", {"notes.md": b"fine\n"}))
    token = planted.TOKENS["OpenAI project key"](random.Random(1))
    (tmp_path / "later" / "notes.md").write_text(planted.TOKEN_CONTEXTS["markdown"](token))
    with pytest.raises(SkillError, match=r"notes\.md:6:14: FLU315 holds an OpenAI API key; refused"):
        skill.read_bytes("notes.md")


def test_dev_mode_refuses_a_file_turned_into_a_fifo_without_blocking(tmp_path: Path) -> None:
    skill = load_skill_dir(claim_skill(tmp_path / "piped", {"notes.md": b"fine\n"}))
    (tmp_path / "piped" / "notes.md").unlink()
    os.mkfifo(tmp_path / "piped" / "notes.md")  # nobody writes: a blocking open would hang the test
    with pytest.raises(SkillError, match="FLU307"):
        skill.read_bytes("notes.md")


def test_the_local_sandbox_does_not_read_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(SandboxError, match="not a regular file"):
        LocalSandbox(tmp_path).read_bytes("pipe")


@pytest.fixture
def sealed_markdown() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="flue-claims-"))
    base.chmod(0o755)
    target = base / "huge.md"
    with open(target, "wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse
    target.chmod(0)
    yield target
    target.unlink()
    base.rmdir()


def test_a_markdown_target_over_the_size_limit_is_never_opened(sealed_markdown: Path) -> None:
    """Mode 000: had it been opened, the result would be FLU308 (cannot read), not FLU311."""
    script = textwrap.dedent(
        """\
        import json, sys
        from pathlib import Path
        from flue_runtime.format.markdown_file import vet_markdown
        print(json.dumps([d.code for d in vet_markdown(Path(sys.argv[1]), "huge.md").diagnostics]))
        """
    )
    proc = run([sys.executable, "-c", script, str(sealed_markdown)], sealed_markdown.parent)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ["FLU311"]
