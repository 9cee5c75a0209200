"""Fixtures of the CLI tests: the `flue-skills` console script run as a child process, and the loopback model API."""

from __future__ import annotations

import sys
from pathlib import Path

# The loopback model API of the provider tests, for `run --model`.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "providers"))

from clisupport import CLI, cli  # noqa: E402
from fakeapi import clean_env, fake_api  # noqa: E402

__all__ = ["CLI", "clean_env", "cli", "fake_api"]
