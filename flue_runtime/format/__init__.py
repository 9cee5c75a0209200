"""The skill format and its rules: frontmatter, schema, validation, vetting, manifest."""

__all__: list[str] = []
