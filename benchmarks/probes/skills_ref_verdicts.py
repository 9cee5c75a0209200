"""Child process of the agreement benchmark: the reference validator's verdict on each skill folder.

    python skills_ref_verdicts.py < folders.json

Reads a JSON list of folder paths on stdin and prints a JSON object: each folder's list of
error messages from `skills_ref.validate(folder)` (what `skills-ref validate FOLDER` prints,
one per line; an empty list is a valid skill), or `{"crash": "Type: message"}` when the
validator raised instead of answering. Run it under the interpreter that has skills-ref
installed; `verdicts` is what the benchmark calls in-process when its own interpreter has it.
"""

import json
import sys
from pathlib import Path


def verdicts(folders: list[str]) -> dict[str, list[str] | dict[str, str]]:
    from skills_ref import validate

    found: dict[str, list[str] | dict[str, str]] = {}
    for folder in folders:
        try:
            found[folder] = [str(message) for message in validate(Path(folder))]
        except Exception as exc:  # the validator's own failure is a verdict to report, not ours to hide
            found[folder] = {"crash": f"{type(exc).__name__}: {exc}"}
    return found


if __name__ == "__main__":
    json.dump(verdicts(json.load(sys.stdin)), sys.stdout)
