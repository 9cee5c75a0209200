"""The hatch plugin's own README sends readers to a section of the documentation, which exists."""

from __future__ import annotations

import re

from support.paths import ROOT


def anchor(heading: str) -> str:
    """GitHub's anchor for a markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_hatch_plugin_readme_links_to_a_section_of_the_documentation() -> None:
    text = (ROOT / "hatch_plugin" / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((\.\./docs/[\w/-]+\.md)#([\w-]+)\)", text)
    assert links, "hatch_plugin/README.md has no link to a page of the documentation"
    readme = ROOT / "hatch_plugin" / links[0][0]
    headings = {anchor(h) for h in re.findall(r"^#+ (.+)$", readme.read_text(encoding="utf-8"), re.MULTILINE)}
    assert {section for _, section in links} <= headings
