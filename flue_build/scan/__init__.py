"""Which modules a build ships, and the skill references they hold."""
