"""What the tests share, each helper written once (tests/ is on sys.path: `pythonpath` in pyproject.toml).

- `support.paths`: where the checkout and its fixtures are;
- `support.hostile`: `fixtures/hostile` (`artifacts`, `corpus`, `planted`) made importable;
- `support.projects`: fixture projects copied to a temporary folder, skills and modules written,
  the pyproject.toml of a hatchling or a setuptools project with the flue-skills hook;
- `support.procs`: a child process run, bounded, its failure an assertion error;
- `support.builds`: `SOURCE_DATE_EPOCH`, `python -m build` and its result, the files of a wheel or an sdist;
- `support.envs`: fresh virtual environments and `pip install` into them, offline;
- `support.diagnostics`: a SKILL.md checked, its diagnostic codes.

A folder's own helpers (the hostile corpus's projects, the run-time setups, ...) stay in that folder.
"""
