"""One module per `flue-skills` command, named for it (`run.py` is `flue-skills run`); each has `register(add_parser)`.

The helpers they share (targets, exit statuses, the HTTP server of `mcp --http`, ...) are the modules beside this
package, in `flue_build.cli`.
"""

__all__: list[str] = []
