"""Random skill sources against `load_skill`: whatever a source names, lists, claims and returns, the result is a
mounted skill whose every file passes the rules, or a `SkillError` naming the source; nothing else.

Documented error contract: `load_skill(source)` raises `SkillError` (a `SkillError`, a `FlueError`) and
nothing else; `SkillReference.read_bytes(path)` on its result raises `SkillError`, `SkillPathError` or
`SkillNotFoundError`.
"""

from __future__ import annotations

import hashlib
import warnings
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from flue_runtime import ListedFile, load_skill
from flue_runtime.errors import SkillError, SkillNotFoundError, SkillPathError
from flue_runtime.format.secrets import is_secret_file

pytestmark = pytest.mark.slow  # hypothesis campaigns

NAMES = st.sampled_from(["refunds", "Refunds", "", "a" * 65, "../x", "refunds/", "ref\nunds", "réfunds"])
SEGMENTS = st.sampled_from(
    ["a", "b.md", "..", ".", "", ".env", ".ssh", "id_rsa", "node_modules", "x~", "é", "%2e", "\\"]
)
PATHS = st.lists(SEGMENTS, min_size=1, max_size=4).map("/".join)
CONTENT = st.sampled_from([b"", b"text\n", b"-----BEGIN RSA PRIVATE KEY-----\n" + b"QUFB" * 20 + b"\n", b"\xff\x00"])
SKILL_MDS = st.sampled_from(
    [
        b"---\nname: refunds\ndescription: Refunds.\n---\nBody.\n",
        b"---\nname: other\ndescription: Refunds.\n---\nBody.\n",
        b"no frontmatter",
        b"---\nname: refunds\n",
        b"\xff\xfe",
    ]
)


class Fuzzed:
    def __init__(self, name: Any, files: dict[str, bytes], lies: dict[str, Any], served: dict[str, Any]) -> None:
        self.name, self.files, self.lies, self.served = name, files, lies, served

    def describe(self) -> str:
        return "fuzzed source"

    def listing(self) -> list[Any]:
        out: list[Any] = []
        for path, data in self.files.items():
            out.append(self.lies.get(path, ListedFile(path, len(data), hashlib.sha256(data).hexdigest())))
        return out

    def read(self, path: str) -> Any:
        return self.served.get(path, self.files.get(path))


LIES = st.one_of(
    st.builds(ListedFile, PATHS, st.integers(-1, 3 * 1024**3), st.none() | st.sampled_from(["0" * 64, "zz"])),
    st.sampled_from([None, 7, ("a", 1)]),
)


@given(
    name=NAMES,
    skill_md=SKILL_MDS,
    others=st.dictionaries(PATHS, CONTENT, max_size=5),
    lies=st.dictionaries(PATHS | st.just("SKILL.md"), LIES, max_size=2),
    served=st.dictionaries(PATHS | st.just("SKILL.md"), CONTENT | st.just("str") | st.none(), max_size=2),
    eager=st.booleans(),
)
def test_load_skill_mounts_only_what_the_rules_pass_or_raises_a_source_error(
    name: Any, skill_md: bytes, others: dict[str, bytes], lies: dict[str, Any], served: dict[str, Any], eager: bool
) -> None:
    source = Fuzzed(name, {"SKILL.md": skill_md, **others}, lies, served)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            skill = load_skill(source, eager=eager)
    except SkillError as exc:
        assert exc.source == "fuzzed source" and str(exc).startswith("fuzzed source")
        event("refused")
        return
    event("mounted")
    assert skill.name == "refunds" and name == "refunds"
    for path in skill.resources:
        assert not any(part in ("..", ".", "") or is_secret_file(part) for part in path.split("/")), path
        try:
            data = skill.read_bytes(path)
        except (SkillError, SkillPathError, SkillNotFoundError):
            continue
        assert b"PRIVATE KEY-----\nQUFB" not in data
        assert hashlib.sha256(data).hexdigest() == next(f.sha256 for f in skill.files if f.path == path)
