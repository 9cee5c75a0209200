"""Build time for flue skills: find skill references, validate and pack skills, the CLI."""

__all__: list[str] = []
