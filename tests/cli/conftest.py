"""Fixtures of the CLI tests: the `flue-skills` console script run as a child process, and the loopback model API."""

from __future__ import annotations

from clisupport import CLI, cli
from support.fakeapi import clean_env, fake_api

__all__ = ["CLI", "clean_env", "cli", "fake_api"]
