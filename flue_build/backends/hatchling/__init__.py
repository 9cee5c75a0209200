"""Everything flue-skills does with hatchling: the hook's work, hatchling's selection, the project read as data."""

__all__: list[str] = []
