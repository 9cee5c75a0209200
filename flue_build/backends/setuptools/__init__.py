"""Everything flue-skills does with setuptools: the plugin, setuptools' selection, the project read as data."""

__all__: list[str] = []
