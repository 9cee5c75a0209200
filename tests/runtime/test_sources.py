"""The skill source protocol: whatever a source lists goes through the build's rules in `load_skill`, every
later read is checked against what was vetted, and every failure is a `SkillError` naming the source."""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path
from typing import Any

import pytest
from support.projects import write_skill
from support.sources import PEM_KEY, DictSource, skill_md

from flue_runtime import (
    Harness,
    ListedFile,
    MemorySandbox,
    SkillReference,
    SkillSource,
    SkillWarning,
    agent,
    define_skill,
    load_skill,
    use_model,
    use_skill,
)
from flue_runtime.agents.workspace import discover_workspace_skills
from flue_runtime.errors import SkillError
from flue_runtime.models import ScriptedModel
from flue_runtime.mount.disk import load_skill_dir

GIB = 1024**3


def refunds(**kwargs: Any) -> DictSource:
    files = {"SKILL.md": skill_md("refunds"), "policy.md": b"Orders younger than 30 days are refundable.\n"}
    files.update(kwargs.pop("files", {}))
    return DictSource("refunds", files, **kwargs)


@pytest.mark.parametrize("digests", [False, True], ids=["read-at-load", "read-when-used"])
def test_a_source_is_vetted_and_mounted_like_a_bundled_skill(digests: bool) -> None:
    source = refunds(digests=digests, files={"data/rates.csv": b"a,b\n1,2\n"})
    skill = load_skill(source)

    assert isinstance(source, SkillSource)
    assert (skill.name, skill.description, skill.origin) == (
        "refunds",
        "Handle refund requests.",
        "dict source 'refunds'",
    )
    assert skill.instructions == "# Steps\n\nRead policy.md.\n"
    assert skill.resources == ("data/rates.csv", "policy.md")
    # Listed with digests, only SKILL.md is read at load; without, every file is read, hashed and scanned.
    assert sorted(source.reads) == (["SKILL.md"] if digests else ["SKILL.md", "data/rates.csv", "policy.md"])
    assert skill.read_text("policy.md") == "Orders younger than 30 days are refundable.\n"
    assert skill.id == define_skill_like(source).id  # the same files give the same content id, whatever the source


def define_skill_like(source: DictSource) -> SkillReference:
    """The same skill as a plain folder's would be vetted: through `load_skill` of a dict without digests."""
    return load_skill(DictSource(source.name, source.files))


def _hostile() -> dict[str, tuple[DictSource, str, list[str]]]:
    """Each hostile source, the code its error gives, and the files it must never have been asked for."""
    big = ListedFile("big.bin", 2 * GIB)
    return {
        "dotdot-path": (refunds(files={"../x": b"x"}), "FLU309", ["../x"]),
        "absolute-path": (refunds(files={"/etc/passwd": b"x"}), "FLU309", ["/etc/passwd"]),
        "env-file": (refunds(files={".env": b"TOKEN=1\n"}), "FLU302", [".env"]),
        "secret-folder": (refunds(files={".ssh/config": b"Host x\n"}), "FLU302", [".ssh/config"]),
        "pem-in-content": (refunds(files={"notes.txt": PEM_KEY}), "FLU303", []),
        "claims-2-gib": (refunds(listed={"big.bin": big}, served={"big.bin": b"x"}), "FLU311", ["big.bin"]),
        "bad-name": (DictSource("Refunds!", {"SKILL.md": skill_md("Refunds!")}), "FLU204", ["SKILL.md"]),
        "path-as-name": (DictSource("../../etc", {"SKILL.md": skill_md("etc")}), "FLU204", ["SKILL.md"]),
        "name-not-frontmatters": (DictSource("billing", {"SKILL.md": skill_md("refunds")}), "FLU205", []),
        "other-bytes-than-listed": (
            refunds(served={"policy.md": b"Everything is refundable, always.\n"}),
            "FLU308",
            [],
        ),
        "skill-md-other-than-listed": (
            refunds(digests=True, served={"SKILL.md": skill_md("refunds", "Other.")}),
            "FLU308",
            [],
        ),
        "unreachable": (refunds(served={"policy.md": ConnectionRefusedError(111, "Connection refused")}), "FLU308", []),
        "read-not-bytes": (refunds(served={"policy.md": "text, not bytes"}), "FLU308", []),
        "listed-twice": (refunds(listed={"policy.md": ListedFile("policy.md", 44)}, files={}), "FLU309", []),
        "no-skill-md": (DictSource("refunds", {"policy.md": b"x"}), "FLU101", []),
        "bad-size": (refunds(listed={"policy.md": ListedFile("policy.md", -1)}), "FLU309", ["policy.md"]),
    }


HOSTILE = _hostile()


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_source_is_a_source_error_naming_it_and_nothing_is_mounted(case: str) -> None:
    source, code, never_read = HOSTILE[case]
    if case == "listed-twice":  # a listing that names one file twice
        source.listing = lambda: [ListedFile("SKILL.md", len(skill_md("refunds"))), *[ListedFile("policy.md", 1)] * 2]  # type: ignore[method-assign]
    with pytest.raises(SkillError) as caught:
        load_skill(source)

    error = caught.value
    assert error.source == source.describe()
    assert str(error).startswith(source.describe()), str(error)
    assert code in [d.code for d in error.diagnostics], error.report()
    assert not set(never_read) & set(source.reads), f"{case}: read {source.reads}"


def test_a_file_read_after_load_is_checked_against_the_listing_and_scanned() -> None:
    """Listed with a digest, a file is fetched at first use: other bytes than listed, or a key, are refused then,
    naming the source; the other files still read."""
    listed_key = {"keys.txt": ListedFile("keys.txt", len(PEM_KEY), hashlib.sha256(PEM_KEY).hexdigest())}
    source = refunds(digests=True, listed=listed_key, served={"keys.txt": PEM_KEY})
    with pytest.raises(SkillError, match=r"^dict source 'refunds'/keys.txt:1:1: FLU303"):
        load_skill(source, eager=True)  # read now: refused now
    source.reads.clear()
    skill = load_skill(source)
    assert source.reads == ["SKILL.md"]

    with pytest.raises(SkillError, match=r"^dict source 'refunds'/keys.txt:1:1: FLU303"):
        skill.read_bytes("keys.txt")
    source.served["policy.md"] = b"Orders younger than 99 days are refundable.\n"
    with pytest.raises(SkillError, match=r"^dict source 'refunds'/policy.md: FLU308 .*SHA-256 differs"):
        skill.read_bytes("policy.md")
    source.served["policy.md"] = ConnectionResetError(104, "Connection reset by peer")
    with pytest.raises(SkillError, match="ConnectionResetError"):
        skill.read_bytes("policy.md")
    del source.served["policy.md"]
    assert skill.read_text("policy.md") == "Orders younger than 30 days are refundable.\n"


def test_a_source_whose_listing_never_ends_is_stopped_at_the_file_limit() -> None:
    class Endless(DictSource):
        def listing(self) -> Any:
            yield ListedFile("SKILL.md", len(self.files["SKILL.md"]))
            n = 0
            while True:
                n += 1
                yield ListedFile(f"f{n}.txt", 1)

    source = Endless("refunds", {"SKILL.md": skill_md("refunds")})
    with pytest.raises(SkillError) as caught:
        load_skill(source)
    assert "FLU310" in [d.code for d in caught.value.diagnostics]


def test_a_source_that_fails_to_list_or_to_name_itself_is_named_in_the_error() -> None:
    class Broken(DictSource):
        def listing(self) -> list[ListedFile]:
            raise TimeoutError("the database did not answer")

    with pytest.raises(SkillError, match=r"^dict source 'refunds': FLU308 cannot list .*TimeoutError"):
        load_skill(Broken("refunds", {}))

    class Nameless(DictSource):
        @property  # type: ignore[override]
        def name(self) -> str:
            raise KeyError("name")

        @name.setter
        def name(self, value: str) -> None:
            pass

    with pytest.raises(SkillError, match="^dict source 'x': its name cannot be read: KeyError"):
        load_skill(Nameless("x", {}, where="dict source 'x'"))


def test_warnings_the_build_would_print_are_skill_warnings() -> None:
    with pytest.warns(SkillWarning, match="FLU304"):
        skill = load_skill(refunds(files={"notes.md~": b"draft"}))
    assert skill.resources == ("policy.md",)


def test_a_reference_cannot_be_made_around_an_unvetted_source() -> None:
    unvetted = refunds()
    with pytest.raises(SkillError, match="load_skill"):
        SkillReference(load_skill(unvetted).fields, unvetted)  # type: ignore[arg-type]


def test_use_skill_points_a_source_at_load_skill() -> None:
    @agent
    def assistant() -> str:
        use_model(ScriptedModel(["done"]))
        use_skill(refunds())  # type: ignore[arg-type]
        return ""

    with pytest.raises(Exception, match=r"DictSource; a skill source is vetted and mounted by flue_runtime.load_skill"):
        Harness(assistant).prompt_sync("go")


def test_every_source_flue_has_implements_the_protocol(tmp_path: Path) -> None:
    """A folder (dev mode), `define_skill` and a workspace folder are each a `SkillSource`: `load_skill` of one vets
    it anew and gives the same skill (a bundle's is checked in tests/integrations/test_same_results.py)."""
    folder = write_skill(tmp_path / "refunds", files={"policy.md": "Thirty days.\n", "data/r.csv": "a\n"})
    sandbox = MemorySandbox(
        {".agents/skills/triage/SKILL.md": skill_md("triage").decode(), ".agents/skills/triage/x.md": "x"}
    )
    [(workspace, _)] = discover_workspace_skills(sandbox)
    defined = define_skill(name="vip", description="VIP care.", instructions="Offer a voucher.\n", files={"v.md": "v"})
    for skill in (load_skill_dir(folder), defined, workspace):
        assert isinstance(skill.source, SkillSource)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            again = load_skill(skill.source)
        assert (again.id, again.fields, again.instructions) == (skill.id, skill.fields, skill.instructions)
        assert [again.read_bytes(path) for path in again.resources] == [skill.read_bytes(p) for p in skill.resources]
