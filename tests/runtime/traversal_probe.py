"""Traversal and confusion attempts against one mounted skill, through every way a path reaches it.

Run inside a test setup (an installed wheel, a zipped wheel, an editable install) as a
script: `python traversal_probe.py` prints one JSON document; or imported, `probe(skill)`
for a skill made in the test process. It imports nothing from the tests.

Each attempt goes to `read_skill_resource` and to the sandbox `read` tool (as the model
would call them, through the harness, with a LocalSandbox full of decoys: files a wrong
normalisation would reach), and its skill-relative part to `SkillReference.read_bytes`.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

SKILL = "data-tools"
PREFIX = f"/.flue/skills/{SKILL}/"

#: Relative to the skill folder: each must be refused by all three entry points.
RELATIVE = [
    # plain dot-dot
    "..",
    "../billing/policy.md",
    "../../../../../../../../etc/passwd",
    "scripts/../../billing/policy.md",
    "scripts/../SKILL.md",
    "./SKILL.md",
    ".",
    "",
    "...",
    # percent-encoding, single, double, triple, mixed case, encoded separators
    "%2e%2e/billing/policy.md",
    "%2E%2E%2Fbilling%2Fpolicy.md",
    "%252e%252e/billing/policy.md",
    "%25252e%25252e/billing/policy.md",
    "..%2fbilling%2fpolicy.md",
    "..%5cbilling%5cpolicy.md",
    "%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "..%c0%afbilling%c0%afpolicy.md",
    "..%ef%bc%8fbilling",
    # backslashes and Windows forms
    "..\\billing\\policy.md",
    "scripts\\..\\..\\billing\\policy.md",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "\\\\server\\share\\policy.md",
    # absolute and doubled slashes
    "/etc/passwd",
    "//etc/passwd",
    "scripts//summarise.py",
    "file:///etc/passwd",
    "~/.ssh/id_rsa",
    # NUL and other control characters
    "scripts/summarise.py\x00.png",
    "\x00../billing/policy.md",
    "scripts/summarise.py%00",
    "\n../billing/policy.md",
    "scripts/\tsummarise.py",
    "\x1b[2J../billing/policy.md",
    # Unicode dots and slashes (NFKC folds them into `.` and `/`), and ones it does not fold
    "\uff0e\uff0e/billing/policy.md",
    "\u2025/billing/policy.md",
    "\u2024\u2024/billing/policy.md",
    "\ufe52\ufe52/billing/policy.md",
    "..\uff0fbilling\uff0fpolicy.md",
    "..\uff3cbilling\uff3cpolicy.md",
    "..\u2215billing\u2215policy.md",
    "..\u2044billing",
    "\u202e../billing/policy.md",
    # another skill, the package around the bundle, the bundle's own manifest
    "../billing/SKILL.md",
    "../billing/.env.example",
    "../../_flue_skills/manifest.json",
    "../../__init__.py",
    "../../agents/support.py",
    # case variants of real files
    "SKILL.MD",
    "skill.md",
    "Scripts/summarise.py",
    "SCRIPTS/SUMMARISE.PY",
    " ../billing/policy.md",
]

#: The entries of RELATIVE that are plain relative paths (no dot-dot in any spelling, nothing a
#: Unicode fold turns into a dot or a slash): they pass the path check and are then not found in
#: the skill's file list (`SkillNotFoundError`). Every other entry is refused by the path check
#: itself (`SkillPathError`), before any lookup.
REACHES_LOOKUP = {
    "...",
    "..%c0%afbilling%c0%afpolicy.md",
    "..%ef%bc%8fbilling",
    "~/.ssh/id_rsa",
    "..\u2215billing\u2215policy.md",
    "..\u2044billing",
    "\u202e../billing/policy.md",
    "SKILL.MD",
    "skill.md",
    "Scripts/summarise.py",
    "SCRIPTS/SUMMARISE.PY",
    " ../billing/policy.md",
}

#: Whole tool paths that play with the /.flue/skills prefix itself: each must fail in both tools.
TOOL_ONLY = [
    "/.flue/skills/billing/policy.md",  # another skill: in the same bundle, not mounted
    "/.flue/skills/billing/.env.example",
    "/.flue/skills/ghost/SKILL.md",
    "/.flue/skills/Data-Tools/SKILL.md",
    "/.flue/skills/DATA-TOOLS/SKILL.md",
    "/.FLUE/skills/data-tools/SKILL.md",
    "/.flue/SKILLS/data-tools/SKILL.md",
    "/.flue/skills/../../etc/passwd",
    "/.flue/skills/./data-tools/SKILL.md",
    "/.flue/skills//data-tools/SKILL.md",
    "/.flue/skills/%2e%2e/%2e%2e/etc/passwd",
    "/.flue/%2e%2e/etc/passwd",
    "/.flue/../etc/passwd",
    "/.flue/skills/data-tools",
    "/.flue/skills",
    "/.flue/skills/\uff0e\uff0e/billing/policy.md",
    "/.flue/skills/data-tools/../billing/policy.md",
    "\\.flue\\skills\\data-tools\\SKILL.md",
]

#: The skill's own folder, spelled as RELATIVE's "" and as TOOL_ONLY has it: `read_skill_resource` lists its support
#: files (issue 44: a folder is listed, a page at a time), the sandbox `read` refuses it (a folder is no file).
LISTS_FOLDER = {PREFIX, f"/.flue/skills/{SKILL}"}

#: Tool paths the tree normalises (surrounding blanks, leading or trailing slashes, the `./` and
#: empty segments a sandbox path may start with): each serves exactly the mounted file named.
SERVED = {
    "//.flue/skills/data-tools/SKILL.md": "SKILL.md",
    ".flue/skills/data-tools/scripts/summarise.py": "scripts/summarise.py",
    "/.flue/skills/data-tools/scripts/summarise.py/": "scripts/summarise.py",
    "  /.flue/skills/data-tools/assets/blob.bin\n": "assets/blob.bin",
    "./.flue/skills/data-tools/SKILL.md": "SKILL.md",
    ".//.flue/skills/data-tools/SKILL.md": "SKILL.md",
    ".flue/./skills/data-tools/SKILL.md": "SKILL.md",
}

#: Writes in every spelling of the tree (sandbox spellings, case variants for case-insensitive
#: disks): each refused, so no sandbox file can ever shadow a skill file.
WRITES = [
    "/.flue/skills/data-tools/SKILL.md",
    ".flue/skills/data-tools/SKILL.md",
    "./.flue/skills/data-tools/SKILL.md",
    ".//.flue/skills/data-tools/SKILL.md",
    ".flue/./skills/data-tools/SKILL.md",
    "/.flue//skills/data-tools/new.md",
    " /.flue/skills/data-tools/new.md",
    "/.FLUE/skills/data-tools/SKILL.md",
    "/.flue/Skills/data-tools/new.md",
    "/.flue/skills/new-skill/SKILL.md",
    "/.flue/skills/data-tools/../../x.md",
    "/.flue/skills",
]

#: What must never show up in a result: other skills, the package, the bundle, decoys, the host.
MARKERS = [
    "Refunds within 30 days",
    "BILLING_API_KEY",
    "fr.skill(",
    '"references"',
    "root:x:0:0",
    "DECOY",
    "SECRET-OUTSIDE",
]


def _decoys(base: Path) -> Path:
    """A sandbox root full of files a wrong normalisation would reach, and a secret next to it."""
    (base / "outside.txt").write_text("SECRET-OUTSIDE\n")
    root = base / "sandbox"
    for relative in (
        "etc/passwd",
        "billing/policy.md",
        "billing/SKILL.md",
        ".flue/skills/billing/policy.md",
        ".flue/skills/data-tools/SKILL.md",
        "Windows/win.ini",
        "_flue_skills/manifest.json",
        "__init__.py",
    ):
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"DECOY {relative}\n")
    os.symlink(base / "outside.txt", root / "link-out.txt")
    return root


def probe(skill: Any) -> dict[str, Any]:
    """Every attempt against `skill` (a SkillReference named data-tools); results as plain data."""
    from flue_runtime import Harness, LocalSandbox, agent, use_model, use_skill
    from flue_runtime.models import ScriptedModel, ToolCall

    attempts = [PREFIX + r for r in RELATIVE] + TOOL_ONLY + list(SERVED)
    writes = [ToolCall("write", {"path": path, "content": "SHADOW written by the model"}) for path in WRITES]
    calls = [ToolCall(tool, {"path": path}) for tool in ("read_skill_resource", "read") for path in attempts]
    model = ScriptedModel([writes, calls, "done"])

    @agent
    def reader() -> str:
        use_model(model)
        use_skill(skill)
        return "Read files."

    with tempfile.TemporaryDirectory(prefix="flue-traversal-") as base:
        root = _decoys(Path(base))
        before = _listing(root)
        Harness(reader, sandbox=LocalSandbox(root)).session("traversal").prompt_sync("go")
        unchanged = _listing(root) == before
    wrote = [m for m in model.requests[1].messages if m["role"] == "tool"]
    results = [m for m in model.requests[2].messages if m["role"] == "tool"][len(wrote) :]
    tools: dict[str, list[dict[str, Any]]] = {"read_skill_resource": [], "read": [], "write": []}
    for call, result in [*zip(writes, wrote), *zip(calls, results)]:
        tools[call.name].append(
            {"path": call.arguments["path"], "is_error": result["is_error"], "content": result["content"]}
        )
    direct = []
    for relative in RELATIVE:
        try:
            data = skill.read_bytes(relative)
        except Exception as exc:  # the class is the point: the test checks it
            direct.append({"path": relative, "error": type(exc).__name__, "message": str(exc)})
        else:
            direct.append({"path": relative, "error": None, "content": data.decode("utf-8", "replace")})
    files = {f.path: skill.read_bytes(f.path).hex() for f in skill.files}
    return {
        "origin": skill.origin,
        "tools": tools,
        "read_bytes": direct,
        "files": files,
        "sandbox_unchanged": unchanged,
    }


def _listing(root: Path) -> dict[str, bytes]:
    """Every file under the sandbox root, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file() and not p.is_symlink()}


def main() -> None:
    from runtime_agent_demo.agents import support

    print(json.dumps(probe(support.DATA)))


if __name__ == "__main__":
    sys.exit(main())
