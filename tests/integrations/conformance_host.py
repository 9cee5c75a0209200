"""A skills host for the MCP conformance suite's SEP-2640 client scenarios: the MCP SDK's client and our
host-side verification (`flue_runtime.mcp.host`), the same calls `mcpclient.verified_skills` makes.

The suite runs `python conformance_host.py URL` with the scenario in `MCP_CONFORMANCE_SCENARIO`. A host
lists skills and reads nothing until it loads one; loading the first skill reads its SKILL.md, verifies
it (size, digest, frontmatter field by field) and only then reads the skill's other files. A refused
skill is reported on stderr and the exit status is 3.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp import Client
from mcpclient import list_skills, read_bytes

from flue_runtime.errors import SkillVerificationError
from flue_runtime.mcp.host import verify_file, verify_skill_md


async def host(url: str, scenario: str) -> int:
    async with Client(url) as client:
        listing = await list_skills(client)
        if scenario == "sep-2640-client-no-prefetch":
            return 0  # listed, not loaded: nothing is read
        entry = listing["skills"][0]
        try:
            verify_skill_md(entry, await read_bytes(client, entry["uri"]))
            for resource in entry["resources"]:
                if resource["uri"] != entry["uri"]:
                    verify_file(entry, resource["uri"], await read_bytes(client, resource["uri"]))
        except SkillVerificationError as refused:
            print(f"refused: {refused}", file=sys.stderr)
            return 3
        print(f"loaded {entry['uri']}", file=sys.stderr)
        return 0


if __name__ == "__main__":
    sys.exit(anyio.run(host, sys.argv[-1], os.environ.get("MCP_CONFORMANCE_SCENARIO", "")))
