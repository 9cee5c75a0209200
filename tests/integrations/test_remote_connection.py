"""`mcp.remote_connection` (and the rest of flue-skills) uses the `mcp` SDK through its public names only: no module
imports one of its private modules (`mcp.shared._httpx_utils`) or an internal one no `__all__` offers
(`mcp.os.posix.utilities`), which may change in any release of the SDK (issue 40 item 11)."""

from __future__ import annotations

import ast

from support.paths import ROOT

#: SDK modules that are internal though their names carry no underscore: what the SDK's transports use inside.
INTERNAL = ("mcp.os",)


def sdk_imports() -> list[str]:
    found = []
    for package in ("flue_runtime", "flue_build"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                elif isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                else:
                    continue
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: {name}" for name in names]
    return [line for line in found if line.rpartition(" ")[2].split(".")[0] in ("mcp", "mcp_types")]


def test_no_module_imports_a_private_or_internal_module_of_the_sdk() -> None:
    imports = sdk_imports()
    assert any(line.endswith(" mcp") or " mcp." in line for line in imports)  # (the scan sees the SDK's imports)
    private = [
        line
        for line in imports
        if any(part.startswith("_") for part in line.rpartition(" ")[2].split("."))
        or any(line.rpartition(" ")[2] == name or line.rpartition(" ")[2].startswith(name + ".") for name in INTERNAL)
    ]
    assert private == []


def test_the_host_never_sends_resources_directory_read() -> None:
    """Clients MUST NOT call `resources/directory/read` against a server that has not declared `directoryRead`; our
    host calls it against none (it answers from the held entry's manifest alone): only the server names the method."""
    naming = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "flue_runtime").rglob("*.py")
        if "resources/directory/read" in path.read_text(encoding="utf-8")
    )
    assert naming == ["flue_runtime/mcp/server.py"]
