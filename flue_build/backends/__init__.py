"""What each build backend selects and excludes, asked of the backend itself (never re-implemented)."""

__all__: list[str] = []
