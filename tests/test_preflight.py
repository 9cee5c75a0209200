"""Each hosted service's published rules, checked before any request (`flue_runtime.publish.preflight`, issue 43
item 2): Anthropic at most 8 MB an upload, no "anthropic" or "claude" in the name, the folder named as the skill;
OpenAI at most 500 files, 25 MB a file and 50 MB zipped, exactly one SKILL.md, at the root. Each refusal names the
skill and the rule. What is uploaded is the skill's vetted files, read and checked against their digests."""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Mapping

import pytest

from flue_runtime import define_skill
from flue_runtime.errors import PublishError
from flue_runtime.format.records import content_id
from flue_runtime.mount.reference import SkillReference
from flue_runtime.publish import publish
from flue_runtime.publish.preflight import Upload, refusals, upload, zip_upload


def skill(name: str = "refunds", files: Mapping[str, str | bytes] | None = None) -> SkillReference:
    return define_skill(name=name, description="Handle refunds.", instructions="Read the policy.", files=files or {})


def test_an_upload_is_the_skills_vetted_files_under_a_folder_of_its_name_and_its_digest_is_its_content_id() -> None:
    ref = define_skill(
        name="refunds", description="Handle refunds.", instructions="Read it.", files={"policy.md": "30 days.\n"}
    )
    made = upload(ref)
    assert made.folder == "refunds"
    assert made.files == {f.path: ref.read_bytes(f.path) for f in ref.files}
    assert made.digest == content_id(ref.files) == ref.id
    with zipfile.ZipFile(io.BytesIO(zip_upload(made))) as zipped:
        assert {i.filename: zipped.read(i) for i in zipped.infolist()} == {
            f"refunds/{path}": data for path, data in made.files.items()
        }
    assert zip_upload(made) == zip_upload(upload(ref))  # the same bytes every time: no clock in the zip_upload


def test_a_skill_within_every_rule_passes_both_services() -> None:
    made = upload(skill(files={"policy.md": "30 days.\n"}))
    assert refusals("anthropic", made) == [] and refusals("openai", made) == []


@pytest.mark.parametrize("name", ["claude-helper", "my-anthropic-tools"])
def test_anthropic_refuses_a_reserved_word_in_the_name(name: str) -> None:
    [refusal] = refusals("anthropic", upload(skill(name)))
    assert refusal.startswith(f"skill {name!r}: ") and "anthropic" in refusal and "claude" in refusal
    assert refusals("openai", upload(skill(name))) == []


def test_anthropic_refuses_an_upload_over_8_mb() -> None:
    made = upload(skill(files={"data.bin": b"\0" * 8_000_000}))
    [refusal] = refusals("anthropic", made)
    assert refusal.startswith("skill 'refunds': ") and "8 MB" in refusal
    assert refusals("openai", made) == []


def test_anthropic_refuses_a_folder_not_named_as_the_skill() -> None:
    renamed = skill().renamed("billing")
    [refusal] = refusals("anthropic", upload(renamed))
    assert refusal.startswith("skill 'billing': ") and "'refunds'" in refusal and "folder" in refusal


def test_openai_refuses_more_than_500_files() -> None:
    made = upload(skill(files={f"notes/{n}.md": "x" for n in range(500)}))
    [refusal] = refusals("openai", made)
    assert refusal.startswith("skill 'refunds': ") and "500 files" in refusal and "501" in refusal
    assert refusals("anthropic", made) == []


def test_openai_refuses_a_file_over_25_mb_naming_it() -> None:
    made = upload(skill(files={"big.bin": b"\0" * 25_000_001}))
    refused = refusals("openai", made)
    assert any("big.bin" in r and "25 MB" in r for r in refused), refused


def test_openai_refuses_an_archive_over_50_mb() -> None:
    noise = os.urandom(17_000_000)  # incompressible, each file within 25 MB: an upload made directly (no vetting)
    files = {"SKILL.md": b"---\nname: refunds\ndescription: d\n---\n", "a.bin": noise, "b.bin": noise[::-1]}
    made = Upload("refunds", "refunds", {**files, "c.bin": noise[1:] + noise[:1]})
    refused = refusals("openai", made)
    assert any("50 MB" in r and "zipped" in r for r in refused), refused


def test_openai_refuses_a_second_skill_md_anywhere_in_the_folder() -> None:
    [refusal] = refusals("openai", upload(skill(files={"docs/skill.md": "another"})))
    assert refusal.startswith("skill 'refunds': ") and "docs/skill.md" in refusal and "one SKILL.md" in refusal


def test_an_unknown_service_is_refused() -> None:
    with pytest.raises(PublishError, match="anthropic, openai"):
        publish([skill()], to="gemini")
