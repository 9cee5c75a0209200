"""The skill format and its rules: frontmatter, schema, validation, vetting, manifest."""
