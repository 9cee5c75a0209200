"""The documentation site holds together: every page in the navigation, every sample parses,
every page's Python samples are run by a test, and the reference pages list what the code has."""

from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from support.paths import ROOT
from support.site import DOCS, MKDOCS, code_blocks, nav_pages, page, section


def test_the_navigation_lists_every_page_once() -> None:
    pages = nav_pages()
    on_disk = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
    assert sorted(pages) == on_disk
    assert len(set(pages)) == len(pages)


@pytest.mark.parametrize("name", nav_pages())
def test_every_sample_parses(name: str) -> None:
    for language, code in code_blocks(page(name)):
        if language == "python":
            compile(code, name, "exec")
        elif language == "toml":
            tomllib.loads(code)
        elif language == "yaml":
            yaml.safe_load(code)
        elif language == "json":
            json.loads(code)


def samples_read_by() -> dict[str, list[str]]:
    """Each page with Python samples, and the test modules that name it (as a string, to `page`, `section`
    or `code_blocks`): generated from the tests, so a new page or a moved test needs no hand-kept map."""
    with_python = {name for name in nav_pages() if any(lang == "python" for lang, _ in code_blocks(page(name)))}
    readers: dict[str, list[str]] = {name: [] for name in sorted(with_python)}
    for module in sorted((ROOT / "tests").rglob("test_*.py")):
        if module == Path(__file__):
            continue
        named = {
            node.value
            for node in ast.walk(ast.parse(module.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and node.value in readers
        }
        for name in named:
            readers[name].append(module.relative_to(ROOT).as_posix())
    return readers


def test_every_page_with_python_samples_has_a_test_that_runs_them() -> None:
    readers = samples_read_by()
    assert "guides/mcp.md" in readers and "tests/test_tutorial.py" in readers["tutorial.md"]
    unread = [name for name, modules in readers.items() if not modules]
    assert not unread, f"pages whose Python samples no test module reads: {unread}"


def test_the_guides_are_grouped_alike_in_the_navigation_the_index_and_the_readme() -> None:
    """Build, Run, Serve, Integrate: the navigation's groups, listed in the same order by the site's home page
    and the README."""
    config = yaml.safe_load(MKDOCS.read_text(encoding="utf-8"))
    [guides] = [entry["Guides"] for entry in config["nav"] if isinstance(entry, dict) and "Guides" in entry]
    groups = {
        name: [page for item in pages for page in item.values()] for group in guides for name, pages in group.items()
    }
    assert list(groups) == ["Build", "Run", "Serve", "Integrate"]
    for text, prefix in ((page("index.md"), ""), ((ROOT / "README.md").read_text(encoding="utf-8"), "docs/")):
        listed = text.split("- Guides, by what you do:\n", 1)[1].split("\n- ", 1)[0]
        for name, pages in groups.items():
            line = " ".join(listed.split(f"  - {name}: ", 1)[1].split("\n  - ", 1)[0].split())
            assert re.findall(r"\]\(([^)]+)\)", line) == [prefix + page for page in pages], name


def test_the_reference_sample_is_what_the_build_finds() -> None:
    """The bundles page's first sample: each call is a reference the scanner finds, with the spec shown."""
    from flue_build.scan.scanner import scan_source

    [(language, code), *_] = code_blocks(section("concepts/bundles.md", "## Building wheels with skills"))
    assert language == "python"
    found = scan_source(code.encode("utf-8"), "src/acme_support/__init__.py")
    assert found.diagnostics == []
    shown = re.findall(r'(skill|markdown)\("([^"]+)"\)', code)
    assert [(call.kind, call.spec) for call in found.calls] == shown


def test_the_cli_page_lists_every_command() -> None:
    from flue_build.cli import _parser

    [commands] = [action for action in _parser()._actions if action.dest == "command"]
    listed = re.findall(r"^\| `([a-z]+)` \|", page("reference/cli.md"), re.MULTILINE)
    assert sorted(listed) == sorted(commands.choices)  # type: ignore[arg-type]


def test_the_security_benchmarks_and_changelog_pages_include_the_root_files() -> None:
    """One text each: the pages include SECURITY.md, BENCHMARKS.md and CHANGELOG.md whole, never a copy."""
    for name, source in [
        ("security.md", "SECURITY.md"),
        ("benchmarks.md", "BENCHMARKS.md"),
        ("changelog.md", "CHANGELOG.md"),
    ]:
        lines = [line for line in page(name).splitlines() if not line.startswith("<!--")]
        assert lines == [f'--8<-- "{source}"'], name
        assert (ROOT / source).is_file()


def test_no_page_links_into_the_readme() -> None:
    """The README is a front page now: the site's pages link to each other, never to its old sections."""
    for path in Path(DOCS).rglob("*.md"):
        assert "README.md#" not in path.read_text(encoding="utf-8"), path


# --- the README: a front page that links into the site --------------------------------------------


def readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_a_front_page() -> None:
    assert readme().count("\n") <= 300


def test_every_readme_sample_is_a_sample_of_the_site() -> None:
    """The README's samples are copies of the site's, which the tests run (the quick start: tests/test_example.py)."""
    quick_start = section_of_readme("## Quick start")
    site = [code for name in nav_pages() for _, code in code_blocks(page(name))]
    for _, code in code_blocks(readme()):
        assert code in site or code in quick_start, code


def test_the_readme_says_where_flue_skills_comes_from() -> None:
    """`dependencies = ["flue-skills"]` and `requires = [..., "hatch-flue-skills"]` resolve only once pip and uv
    are pointed at wheels built from a checkout: the README gives Getting started's two commands that do it, and
    links to the messages of Troubleshooting."""
    from support.site import blocks

    setup = blocks(section("getting-started.md", "## Installation"))[0].code
    text = readme()
    assert "```bash\n" + setup + "```" in text
    assert "not on the package index yet" in " ".join(text.split())
    assert "(docs/troubleshooting.md#installing-flue-skills)" in text


def section_of_readme(heading: str) -> str:
    text = readme()
    start = text.index(f"\n{heading}\n")
    return text[start : text.index("\n## ", start + 1)]


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings, as the site's table of contents and GitHub make them."""
    from support.site import headings

    return {
        re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-") for _, _, line in headings(text)
    }


def test_the_readme_links_into_the_site_and_every_link_resolves() -> None:
    links = re.findall(r"\]\(([^)#:]+)(?:#([\w-]+))?\)", readme())
    assert {path for path, _ in links if path.startswith("docs/")} >= {f"docs/{name}" for name in nav_pages()} - {
        f"docs/{name}"
        for name in nav_pages()
        if name.startswith(("reference/api/", "security", "benchmarks", "changelog", "index"))
    }
    for path, anchor in links:
        target = ROOT / path
        assert target.exists(), path
        if anchor:
            assert anchor in anchors(target.read_text(encoding="utf-8")), f"{path}#{anchor}"


def test_the_api_reference_parses_docstrings_in_the_style_they_are_written() -> None:
    """mkdocstrings reads Google-style sections (`Args:`, as the harness reads a tool's docstring); no docstring of
    ours is written in another style (Sphinx fields, NumPy underlined headings), which it would show as text."""
    import ast

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    [handlers] = [plugin["mkdocstrings"]["handlers"] for plugin in config["plugins"] if isinstance(plugin, dict)]
    assert handlers["python"]["options"]["docstring_style"] == "google"
    other = re.compile(
        r"^\s*(:(param|type|returns?|rtype|raises?)\b.*:|(Parameters|Returns|Raises|Yields|Examples?|Notes?)\n\s*---)",
        re.MULTILINE,
    )
    found = []
    for package in ("flue_runtime", "flue_build", "hatch_plugin/hatch_flue_skills"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                    if (doc := ast.get_docstring(node)) and other.search(doc):
                        found.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)}")
    assert found == []
