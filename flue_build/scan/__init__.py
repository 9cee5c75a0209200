"""Which modules a build ships, and the skill references they hold."""

__all__: list[str] = []
