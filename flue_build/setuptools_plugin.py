"""The entry point flue-skills 0.1.0 registered: the plugin is `flue_build.backends.setuptools.plugin`."""

from flue_build.backends.setuptools.plugin import finalize_distribution_options

__all__ = ["finalize_distribution_options"]
