"""The setuptools plugin's entry point as flue-skills 0.1.0 registered it: the plugin is
`flue_build.backends.setuptools.plugin`."""

from flue_build.backends.setuptools.plugin import finalize_distribution_options

__all__ = ["finalize_distribution_options"]
