"""What hatch-flue-skills 0.1.0 calls: the hook's work is `flue_build.backends.hatchling.hook`."""

from flue_build.backends.hatchling.hook import Prepared, artifact_name, finish, prepare

__all__ = ["Prepared", "artifact_name", "finish", "prepare"]
