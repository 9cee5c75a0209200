"""One module per `flue-skills` command, named for it (`run.py` is `flue-skills run`); each has `register(add_parser)`.

A command's module holds its arguments and its printing; what it does is the run time's (`flue_runtime`: the
evaluation, the HTTP serving, what an installed name ships, ...) or a helper's beside this package, in
`flue_build.cli` (targets, exit statuses, ...). No command imports another's module.
"""

__all__: list[str] = []
