"""The fake provider API's fixtures, for every test in this folder."""

from support.fakeapi import clean_env, fake_api

__all__ = ["clean_env", "fake_api"]
