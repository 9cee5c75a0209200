"""The static scanner: which calls are references, which are errors, and where."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from flue_build.scan.prefilter import might_reference
from flue_build.scan.scanner import scan_file, scan_source, spec_problem


def scan(source: str) -> tuple[list[tuple[str, str, int, int]], list[tuple[str, int | None, int | None]]]:
    result = scan_source(textwrap.dedent(source).encode("utf-8"), "m.py")
    return (
        [(c.kind, c.spec, c.line, c.column) for c in result.calls],
        [(d.code, d.line, d.column) for d in result.diagnostics],
    )


def test_every_import_form_is_followed() -> None:
    calls, problems = scan(
        """\
        from flue_runtime import skill as s, markdown
        import flue_runtime as fr
        import flue_runtime
        import flue_runtime.format.manifest
        A = s("./a/SKILL.md")
        B = fr.skill("./b/SKILL.md")
        C = flue_runtime.markdown("./c.md")
        D = markdown("./d.md")
        """
    )
    assert problems == []
    assert calls == [
        ("skill", "./a/SKILL.md", 5, 7),
        ("skill", "./b/SKILL.md", 6, 14),
        ("markdown", "./c.md", 7, 27),
        ("markdown", "./d.md", 8, 14),
    ]


def test_star_import_counts_and_a_later_rebinding_does_not_hide_earlier_calls() -> None:
    calls, _ = scan(
        """\
        from flue_runtime import *
        X = skill("./x/SKILL.md")
        for skill in loaders:
            skill(name)
        """
    )
    assert calls == [("skill", "./x/SKILL.md", 2, 11)]


@pytest.mark.parametrize(
    "body",
    [
        "def f(skill):\n    return skill(name)",
        "def f():\n    skill = make()\n    return skill(name)",
        "for skill in loaders:\n    skill(name)",
        "f = lambda skill: skill(name)",
        "[skill(name) for skill in loaders]",
        "with open(p) as skill:\n    skill(name)",
        "class K:\n    skill = staticmethod(make)\n    x = skill(name)",
        "try:\n    pass\nexcept Exception as skill:\n    skill(name)",
        "import other as skill\nskill(name)",
    ],
)
def test_a_shadowed_name_is_not_a_reference(body: str) -> None:
    source = "from flue_runtime import skill\n" + body + "\n"
    assert scan_source(source.encode(), "m.py").calls == []
    assert scan_source(source.encode(), "m.py").diagnostics == []


def test_scoping_rules_reach_through_functions_and_skip_class_bodies() -> None:
    calls, _ = scan(
        """\
        from flue_runtime import skill
        class K:
            skill = 1
            def m(self):
                return skill("./m/SKILL.md")
        def outer():
            def inner():
                return skill("./i/SKILL.md")
            return inner
        def g():
            global skill
            skill = None
            return skill("./g/SKILL.md")
        """
    )
    assert [c[1] for c in calls] == ["./m/SKILL.md", "./i/SKILL.md", "./g/SKILL.md"]


@pytest.mark.parametrize(
    ("argument", "what"),
    [
        ('f"./{name}/SKILL.md"', "an f-string"),
        ("name", "the variable `name`"),
        ('"./a" + "/SKILL.md"', "a concatenation"),
        ("pick()", "a function call"),
        ("*specs", None),
    ],
)
def test_dynamic_references_are_errors_at_line_and_column(argument: str, what: str | None) -> None:
    source = f"from flue_runtime import skill\n\nX = [\n    skill({argument}),\n]\n"
    result = scan_source(source.encode(), "pkg/m.py")
    [problem] = result.diagnostics
    assert (problem.code, problem.line, problem.column) == ("FLU401", 4, 11)
    assert problem.format().startswith("pkg/m.py:4:11: FLU401 error: ")
    if what:
        assert what in problem.message
    assert result.calls == []


def test_columns_count_characters_not_bytes() -> None:
    source = 'from flue_runtime import skill\nnom = "é"; x = skill(nom)\n'
    [problem] = scan_source(source.encode(), "m.py").diagnostics
    assert (problem.line, problem.column) == (2, 22)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("./refunds/skill.md", "must end in `/SKILL.md`"),
        ("/abs/SKILL.md", "absolute"),
        ("skills\\x\\SKILL.md", "backslash"),
        ("my-pkg/x/SKILL.md", "not an importable package name"),
        ("./a/../../b/SKILL.md", "segment"),
        ("", "empty"),
    ],
)
def test_malformed_specs(spec: str, fragment: str) -> None:
    assert fragment in spec_problem("skill", spec)
    source = f"from flue_runtime import skill\nskill({spec!r})\n"
    [problem] = scan_source(source.encode(), "m.py").diagnostics
    assert problem.code == "FLU403"


def test_good_specs() -> None:
    for spec in ("./a/SKILL.md", "../../a/b/SKILL.md", "pkg/skills/a/SKILL.md"):
        assert spec_problem("skill", spec) == ""
    assert spec_problem("markdown", "./prompts/system.md") == ""
    assert "`.md`" in spec_problem("markdown", "./prompts/system.txt")


def test_a_file_that_does_not_parse_is_named() -> None:
    [problem] = scan_source(b"from flue_runtime import skill\ndef broken(:\n", "pkg/bad.py").diagnostics
    assert problem.code == "FLU402"
    assert problem.location.startswith("pkg/bad.py:2:")


def test_files_that_cannot_reference_are_not_parsed(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def broken(:\n")  # never mentions the runtime: skipped before parsing
    assert not might_reference(broken.read_bytes())
    assert scan_file(broken, "broken.py").diagnostics == []
    typing_only = tmp_path / "typing_only.py"
    typing_only.write_text("from flue_runtime import SkillReference, skill\ndef broken(:\n")  # imports, never calls
    assert not might_reference(typing_only.read_bytes())
    assert scan_file(typing_only, "typing_only.py").diagnostics == []
    other = tmp_path / "other.py"
    other.write_text("from flue_runtime import skill\nX = skill('./a/SKILL.md')\ndef broken(:\n")
    assert [d.code for d in scan_file(other, "other.py").diagnostics] == ["FLU402"]


@pytest.mark.parametrize(
    "call",
    [
        "skill('./a/SKILL.md')",
        "(skill  # the refunds skill\n    ('./a/SKILL.md'))",
        "skill \\\n('./a/SKILL.md')",
        "(skill)('./a/SKILL.md')",
        "fr.skill('./a/SKILL.md')",
        "s('./a/SKILL.md')",
        "flue_runtime.markdown('./a.md')",
    ],
)
def test_every_spelling_of_a_call_is_parsed(call: str) -> None:
    source = f"import flue_runtime\nimport flue_runtime as fr\nfrom flue_runtime import skill, skill as s\nX = {call}\n"
    assert might_reference(source.encode())
    assert len(scan_source(source.encode(), "m.py").calls) == 1


def test_encoding_cookie_is_honoured() -> None:
    source = "# -*- coding: latin-1 -*-\nfrom flue_runtime import skill\nx = 'é'; y = skill(x)\n".encode("latin-1")
    [problem] = scan_source(source, "m.py").diagnostics
    assert (problem.line, problem.column) == (3, 20)


def test_cold_function_bodies_are_skipped_but_hot_ones_are_walked() -> None:
    body = "".join(f"def f{i}(x):\n    return [x for x in range(3)]\n\n" for i in range(50))
    source = (
        "import flue_runtime as fr\n"
        + body
        + "def hot():\n    return fr.skill('./a/SKILL.md')\n\n"
        + "def multi(\n    a,\n):\n    return fr.markdown(\n        './b.md',\n    )\n\n"
        + "class Holder:\n    def method(self, fr):\n        return fr.skill(name)\n"
    )
    calls, problems = scan(source)
    assert [c[1] for c in calls] == ["./a/SKILL.md", "./b.md"]
    assert problems == []  # `fr` in the method is a parameter: not a reference


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "from flue_runtime import skill\n\ndef register(x):\n    return lambda f: f\n\n"
            '@register(skill("./skills/refunds/SKILL.md"))\ndef handler():\n    pass\n',
            [("skill", "./skills/refunds/SKILL.md", 6, 17)],
            id="decorator on a function",
        ),
        pytest.param(
            'import flue_runtime as fr\n\n@register(\n    fr.skill("./a/SKILL.md"),\n)\nclass Agent:\n    pass\n',
            [("skill", "./a/SKILL.md", 4, 14)],
            id="decorator on a class, over several lines",
        ),
        pytest.param(
            'from flue_runtime.mount.resolve import skill\nX = skill("./a/SKILL.md")\n',
            [("skill", "./a/SKILL.md", 2, 11)],
            id="from a module of flue_runtime",
        ),
        pytest.param(
            'from flue_runtime.mount.resolve import markdown as md\nX = md("./a.md")\n',
            [("markdown", "./a.md", 2, 8)],
            id="from a module of flue_runtime, aliased",
        ),
        pytest.param(
            'import flue_runtime.mount.resolve as r\nX = r.skill("./a/SKILL.md")\n',
            [("skill", "./a/SKILL.md", 2, 13)],
            id="a module alias",
        ),
        pytest.param(
            'import flue_runtime.mount.resolve\nX = flue_runtime.mount.resolve.skill("./a/SKILL.md")\n',
            [("skill", "./a/SKILL.md", 2, 38)],
            id="a dotted module path",
        ),
        pytest.param(
            'from flue_runtime import mount\nX = mount.resolve.skill("./a/SKILL.md")\n',
            [("skill", "./a/SKILL.md", 2, 25)],
            id="a module imported from flue_runtime",
        ),
        pytest.param(
            'from flue_runtime import skill\nload = skill\n\ndef f():\n    return load("./a/SKILL.md")\n',
            [("skill", "./a/SKILL.md", 5, 17)],
            id="an alias by assignment, called in a function",
        ),
        pytest.param(
            'import flue_runtime as fr\nload = fr.skill\nmd: object = fr.markdown\nA = load("./a/SKILL.md")\nB = md("./b.md")\n',
            [("skill", "./a/SKILL.md", 4, 10), ("markdown", "./b.md", 5, 8)],
            id="aliases of attributes, annotated too",
        ),
        pytest.param(
            'from flue_runtime import skill, markdown\na, b = markdown, skill\nc = d = a\nX = b("./x/SKILL.md")\nY = d("./y.md")\n',
            [("skill", "./x/SKILL.md", 4, 7), ("markdown", "./y.md", 5, 7)],
            id="tuple and chained assignments",
        ),
        pytest.param(
            'import flue_runtime\nr = flue_runtime.mount\nX = r.resolve.skill("./a/SKILL.md")\n',
            [("skill", "./a/SKILL.md", 3, 21)],
            id="a module alias by assignment",
        ),
        pytest.param(
            'from flue_runtime import skill\nif (load := skill):\n    X = load("./a/SKILL.md")\n',
            [("skill", "./a/SKILL.md", 3, 14)],
            id="an assignment expression",
        ),
        pytest.param(
            'from ｆlue_runtime import ｓkill as ｌoad\nX = ｌoad("./a/SKILL.md")\nY = ｓkill\n',
            [("skill", "./a/SKILL.md", 2, 10)],
            id="NFKC spellings of every name",
        ),
        pytest.param(
            'from flue_runtime import skill\n\ndef f():\n    return ｓkill("./a/SKILL.md")\n',
            [("skill", "./a/SKILL.md", 4, 18)],
            id="an NFKC spelling inside a function body",
        ),
        pytest.param(
            '# coding: utf-7\nfrom flue_runtime import +AHM-kill\n\ndef f():\n    return +AHM-kill("./a/SKILL.md")\n',
            [("skill", "./a/SKILL.md", 5, 18)],
            id="a UTF-7 encoded name",
        ),
        pytest.param(
            'from flue_runtime import skill\r\rdef f():\r    return skill("./a/SKILL.md")\r',
            [("skill", "./a/SKILL.md", 4, 18)],
            id="lines ending in CR alone",
        ),
    ],
)
def test_every_way_of_reaching_skill_is_a_reference(source: str, expected: list[tuple[str, str, int, int]]) -> None:
    data = source.encode("utf-8")
    assert might_reference(data)
    result = scan_source(data, "m.py")
    assert result.diagnostics == []
    assert [(c.kind, c.spec, c.line, c.column) for c in result.calls] == expected


@pytest.mark.parametrize(
    "body",
    [
        "load = skill\ndef f(load):\n    return load(name)",
        "load = skill\nload = other\nload(name)",
        "def f():\n    load = other\n    return load(name)\nload = skill",
        "from other import skill as s\nload = s\nload(name)",
        "import flue_runtime as fr\nfr = other\nfr.skill(name)",
        "skill = skill\nskill = None\nskill(name)",
        "load = skill.__wrapped__\nload(name)",
        "a = b\nb = a\na(name)",
    ],
)
def test_an_alias_rebound_or_shadowed_is_not_a_reference(body: str) -> None:
    source = "from flue_runtime import skill\n" + body + "\n"
    result = scan_source(source.encode(), "m.py")
    assert (result.calls, result.diagnostics) == ([], [])


def test_an_alias_of_an_alias_refers_to_the_original() -> None:
    calls, problems = scan("from flue_runtime import skill\nskill = skill\nload = skill\nX = load('./a/SKILL.md')\n")
    assert problems == []
    assert [c[1] for c in calls] == ["./a/SKILL.md"]


def test_a_long_alias_chain_is_followed_without_recursion_limits() -> None:
    chain = "".join(f"a{i + 1} = a{i}\n" for i in range(5000))
    source = f"from flue_runtime import skill as a0\n{chain}X = a5000('./a/SKILL.md')\nY = a40('./b/SKILL.md')\n"
    result = scan_source(source.encode(), "m.py")  # past the depth followed: not a reference, and no exception
    assert [c.spec for c in result.calls] == ["./b/SKILL.md"]


def test_the_prefilter_skips_a_module_that_only_binds_other_names() -> None:
    assert not might_reference(b"from flue_runtime import SkillReference\nX: SkillReference = make()\n")
    assert not might_reference("from ｆlue_runtime import SkillReference\n".encode())
    assert might_reference(b"from flue_runtime import skill\nload = skill\n")
