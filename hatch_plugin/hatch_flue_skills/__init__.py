"""hatch-flue-skills: the hatchling build hook of flue-skills (hook name `flue-skills`)."""

__all__: list[str] = []


__version__ = "0.1.0"
