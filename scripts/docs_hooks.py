"""MkDocs hooks for the documentation site (`hooks:` in mkdocs.yml).

The API reference lists what `flue_runtime` exports when the site is built, so a name added
to or dropped from `__all__` changes the reference without anyone editing a page.
"""

from __future__ import annotations

from typing import Any

PLACEHOLDER = "<!-- flue:exports -->"


def exported_names() -> list[str]:
    """`flue_runtime.__all__` without the errors, which have a page of their own."""
    import flue_runtime
    from flue_runtime import errors

    return [name for name in flue_runtime.__all__ if name not in errors.__all__]


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if PLACEHOLDER not in markdown:
        return markdown
    blocks = "\n\n".join(f"::: flue_runtime.{name}" for name in exported_names())
    return markdown.replace(PLACEHOLDER, blocks)
