"""Run inside a test setup (a venv, a zipped wheel, an editable install): what the agent package sees.

Prints one JSON document: every skill the fixture packages reference, with its fields,
instructions and every file's bytes (hex); the markdown texts; what each error case
raises; and which heavy modules got imported. test_setups.py compares these documents
across setups and against the fixture sources. It imports nothing from the tests.
"""

from __future__ import annotations

import json
import sys

HEAVY = ("yaml", "jsonschema", "flue_build", "setuptools", "hatchling")


def main() -> None:
    import acme_review_skills
    import acme_review_skills.by_package
    import runtime_agent_demo
    from runtime_agent_demo.agents import support

    import flue_runtime

    skills = {
        "runtime_agent_demo.BILLING": runtime_agent_demo.BILLING,
        "support.BILLING": support.BILLING,
        "support.again()": support.again(),
        "support.DATA": support.DATA,
        "support.REVIEW": support.REVIEW,
        "acme_review_skills.REVIEW": acme_review_skills.REVIEW,
        "acme_review_skills.by_package.REVIEW": acme_review_skills.by_package.REVIEW,
    }
    out = {
        "skills": {key: describe(ref) for key, ref in skills.items()},
        "markdown": {
            "runtime_agent_demo.SYSTEM": runtime_agent_demo.SYSTEM,
            "support.CHECKLIST": support.CHECKLIST,
            "acme_review_skills.CHECKLIST": acme_review_skills.CHECKLIST,
        },
        "same": [
            support.BILLING == runtime_agent_demo.BILLING,
            hash(support.BILLING) == hash(runtime_agent_demo.BILLING),
            support.REVIEW == acme_review_skills.REVIEW,
            len({support.BILLING, runtime_agent_demo.BILLING, support.again()}) == 1,
        ],
        "errors": errors(flue_runtime, support.DATA),
        "origins": {key: ref.origin for key, ref in skills.items()},
        "heavy": [name for name in HEAVY if name in sys.modules],
    }
    json.dump(out, sys.stdout, sort_keys=True)


def describe(ref: object) -> dict[str, object]:
    from flue_runtime import SkillReference

    assert isinstance(ref, SkillReference)
    return {
        "name": ref.name,
        "description": ref.description,
        "license": ref.license,
        "compatibility": ref.compatibility,
        "metadata": dict(ref.metadata),
        "allowed_tools": list(ref.allowed_tools),
        "instructions": ref.instructions,
        "resources": list(ref.resources),
        "files": {f.path: [f.size, f.sha256, ref.read_bytes(f.path).hex()] for f in ref.files},
        "id": ref.id,
    }


def errors(flue_runtime: object, ref: object) -> dict[str, str]:
    """The class of what each bad call raises (the calls run from this module, which has no bundle)."""
    import flue_runtime as fr

    cases = {
        "unknown package": lambda: fr.skill("no_such_package_xyz/review/SKILL.md"),
        "no /SKILL.md": lambda: fr.skill("./skills/billing"),
        "markdown not .md": lambda: fr.markdown("./notes.txt"),
        "read ..": lambda: ref.read_bytes("../SKILL.md"),  # type: ignore[attr-defined]
        "read absolute": lambda: ref.read_text("/etc/passwd"),  # type: ignore[attr-defined]
        "read backslash": lambda: ref.read_text("scripts\\summarise.py"),  # type: ignore[attr-defined]
        "read NUL": lambda: ref.read_bytes("scripts/summarise.py\x00"),  # type: ignore[attr-defined]
        "read %2e%2e": lambda: ref.read_bytes("%2e%2e/x"),  # type: ignore[attr-defined]
        "read missing": lambda: ref.read_bytes("scripts/missing.py"),  # type: ignore[attr-defined]
    }
    found = {}
    for case, call in cases.items():
        try:
            call()
        except fr.FlueError as exc:
            found[case] = type(exc).__name__
        else:
            found[case] = "no error"
    return found


if __name__ == "__main__":
    main()
