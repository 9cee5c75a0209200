"""Mounting skills: specs, bundles, dev-mode disk reads, define_skill, references, the virtual tree."""

__all__: list[str] = []
