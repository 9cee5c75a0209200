"""Run the peer, `agentskills-mcp-server`, as its own command line runs it, on a port of the benchmark's choosing.

    PEER_PYTHON benchmarks/serving_peer.py CONFIG.json PORT
    PEER_PYTHON benchmarks/serving_peer.py CONFIG.json stdio

`python -m agentskills_mcp_server --config CONFIG.json --transport streamable-http` serves on
127.0.0.1:8000 and has no flag for another port, and logs every request at INFO. This runs that
same `main()` with two settings changed: the port (on a shared machine 8000 may be taken), and the
log level, warning as `flue-skills mcp` and the floor use (so no server pays for a log line per
request). With `stdio` for PORT it speaks stdio, its CLI's default transport, at that log level. Everything else (the config, the providers, the capture, the server) is the peer's own.
Runs under the peer's interpreter (Python >= 3.12, `agentskills-mcp-server[fs]` installed).
"""

from __future__ import annotations

import sys
from typing import Any


def main() -> None:
    config, port = sys.argv[1], sys.argv[2]
    from agentskills_mcp_server import __main__ as cli
    from agentskills_mcp_server import native

    run = native.NativeSkillsServer.run

    def run_on_port(self: Any, transport: Any = "stdio", **options: Any) -> None:
        self.settings.log_level = "WARNING"
        if port == "stdio":
            run(self, "stdio")
        else:
            run(self, transport, host="127.0.0.1", port=int(port), **options)

    native.NativeSkillsServer.run = run_on_port  # type: ignore[method-assign]
    transport = "stdio" if port == "stdio" else "streamable-http"
    sys.argv = ["agentskills_mcp_server", "--config", config, "--transport", transport]
    cli.main()


if __name__ == "__main__":
    main()
