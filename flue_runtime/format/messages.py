"""Every diagnostic's words in one table, keyed by code: rewording a message touches this file only.

The code that finds a problem names a key and the values to fill in
(`diagnostic("FLU304 folder", shown, name=name)`), never words. A key is a code, or a code
and the case it words when one code has several (`FLU304 folder`, `FLU304 file`). Texts
are `str.format` templates with named fields; a `{hint}` field is filled with a hint put
together from `PIECES` (a suggested name, a YAML block), which are keyed the same way.
`tests/test_messages.py` checks that every key reported exists and gets exactly its
template's fields, and that every entry here is used.

Codes are stable (the diagnostics page's table, `diagnostics.CODES`); the words here may improve.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["NO_PROJECT", "PIECES", "TEXTS", "Text", "piece", "words"]


class Text(NamedTuple):
    """What a diagnostic says and how to fix it, as templates."""

    message: str
    hint: str = ""


#: Why the hints outside a project do not point to `[tool.flue] allow`.
NO_PROJECT = "this skill belongs to no project (no pyproject.toml), so no [tool.flue] allow can let it through"

_EXAMPLE = "---\nname: my-skill\ndescription: What it does and when to use it.\n---"

TEXTS: dict[str, Text] = {
    # --- 1xx: the SKILL.md file and its frontmatter --------------------------------------------
    "FLU101 misnamed": Text("a skill file must be named exactly `SKILL.md`, not `{name}`", "rename it to SKILL.md"),
    "FLU101 missing": Text(
        "no SKILL.md in this skill folder", "a skill folder needs a SKILL.md; create one with `flue-skills new {name}`"
    ),
    "FLU101 folder": Text(
        "`SKILL.md` is a folder, not a file",
        "a skill's SKILL.md is a file holding its frontmatter and instructions: rename this folder, "
        "then write the file (`flue-skills new {name}` shows its shape)",
    ),
    "FLU102 utf-8": Text("not valid UTF-8: byte 0x{byte:02x} at offset {offset}", "save the file as UTF-8"),
    "FLU102 nul": Text("holds a NUL byte", "remove the NUL byte: SKILL.md must be text"),
    "FLU103": Text("no frontmatter", "start SKILL.md with a frontmatter block:\n" + _EXAMPLE),
    "FLU103 late": Text(
        "no frontmatter", "remove what comes before the first `---` line: it must be the very first line"
    ),
    "FLU104": Text(
        "frontmatter opened on line 1 is never closed", "end the frontmatter with a line holding only `---`"
    ),
    "FLU105": Text(
        "frontmatter is larger than the {limit:,}-byte limit",
        "keep only name, description and short fields in the frontmatter; put the rest in the body "
        "(a project may raise the limit: [tool.flue] max-frontmatter-size in pyproject.toml)",
    ),
    "FLU106": Text("invalid YAML: {problem}", "{hint}"),
    "FLU106 in context": Text("invalid YAML: {problem} ({context})", "{hint}"),
    "FLU106 character": Text("invalid YAML: character #x{code:04x} is not allowed", "{hint}"),
    "FLU106 other": Text("invalid YAML: {problem}"),
    "FLU107 empty": Text("frontmatter is empty", "add at least the required fields:\n" + _EXAMPLE),
    "FLU107 list": Text(
        "frontmatter is a list, not a mapping of fields", "write fields as `key: value` lines:\n" + _EXAMPLE
    ),
    "FLU107 string": Text(
        "frontmatter is a plain string, not a mapping of fields", "write fields as `key: value` lines:\n" + _EXAMPLE
    ),
    "FLU108": Text(
        "duplicate key `{key}` (first on line {first})", "keep one of them: YAML readers disagree on which one wins"
    ),
    "FLU109 documents": Text("frontmatter holds more than one YAML document", "remove the `...` line"),
    "FLU109 alias": Text(
        "YAML alias `*{anchor}` refused",
        "write the value out in full: SKILL.md frontmatter allows no anchors or aliases",
    ),
    "FLU109 complex key": Text("a mapping or sequence used as a key", "keys must be plain strings"),
    "FLU109 nesting": Text(
        "frontmatter nests deeper than {limit} levels",
        "flatten the structure: frontmatter values are strings and one level of metadata",
    ),
    "FLU110": Text("cannot read: {reason}", "check the file's permissions"),
    "FLU111": Text(
        "starts with a UTF-8 byte-order mark: most other readers of SKILL.md then find no frontmatter and refuse it",
        "save the file as UTF-8 without a byte-order mark",
    ),
    # --- 2xx: frontmatter fields ----------------------------------------------------------------
    "FLU201": Text("required field `{key}` is missing", "add `{key}:`"),
    "FLU201 name": Text("required field `name` is missing", "add `name: {directory}` (the skill directory's name)"),
    "FLU201 description": Text(
        "required field `description` is missing", "add `description: What the skill does and when to use it.`"
    ),
    "FLU202": Text("`{key}` must be {expected}, not {kind}", "{hint}"),
    "FLU202 rule": Text("`{key}` {reason}", "see `flue-skills schema` for the rules"),
    # (the arguments of `define_skill`: `mount/define.py`)
    "FLU202 define metadata": Text("`metadata` must be a mapping of strings, not {type}"),
    "FLU202 define allowed_tools": Text("`allowed_tools` must be a string or a list of tool names without spaces"),
    "FLU202 define instructions": Text("`instructions` must be a string, not {type}"),
    "FLU202 define blank": Text(
        "`instructions` is blank: activating the skill would give the model nothing to follow",
        "write the steps the model should take once it activates the skill (the body of its SKILL.md)",
    ),
    "FLU202 define surrogate": Text("`{key}` holds a lone surrogate, which UTF-8 cannot encode"),
    "FLU202 define files": Text("`files` must be a mapping of relative paths to str or bytes, not {type}"),
    "FLU202 define file path": Text(
        "files[{path!r}]: {reason}", "use a relative POSIX path without `..`, like 'docs/reference.md'"
    ),
    "FLU202 define SKILL.md": Text(
        "files[{path!r}]: SKILL.md is generated from the other arguments", "pass the body as `instructions`"
    ),
    "FLU202 define file surrogate": Text("files[{path!r}]: holds a lone surrogate, which UTF-8 cannot encode"),
    "FLU202 define file content": Text("files[{path!r}]: content must be str or bytes, not {type}"),
    "FLU202 define file and folder": Text("files[{path!r}]: is a file and also a folder of other files"),
    "FLU203": Text("name `{name}` {problems}", "{hint}"),
    "FLU204": Text("name `{name}` {problems}", "{hint}"),
    "FLU205": Text("name `{name}` differs from its directory `{directory}`", "{hint}"),
    "FLU206": Text("description is empty", "say what the skill does and when to use it"),
    "FLU207": Text(
        "description is {length} characters long; the limit is {limit}",
        "shorten it to what the skill does and when to use it; "
        "details belong in the body, which the agent reads on activation",
    ),
    "FLU208": Text(
        "compatibility must be {minimum}-{maximum} characters, not {length}",
        "state the environment needs briefly, e.g. `compatibility: Requires git and network access`",
    ),
    "FLU209": Text(
        "metadata value `{key}` is {kind}; metadata values must be strings",
        'flatten it into string values (e.g. `{key}.field: "value"`) or write it as one quoted string',
    ),
    "FLU210": Text("unknown field `{key}`", "{hint}"),
    "FLU211": Text("allowed-tools looks comma-separated; the spec separates tools with spaces", "{hint}"),
    "FLU212": Text(
        "skill `{inner}` sits inside skill `{outer}` ({display}); "
        "it is packed as a support file of `{outer}`, not as a skill of its own",
        "move `{inner}` out of `{outer}` into a sibling folder",
    ),
    "FLU213": Text(
        "description is still the placeholder `flue-skills new` wrote",
        "replace it with what the skill does and when the agent should use it: "
        "the catalog line is all the model sees when it decides whether to activate the skill",
    ),
    "FLU214": Text(
        "metadata key `{key}` is under `io.modelcontextprotocol/`, a prefix reserved for keys MCP extensions "
        "define (none defines this one); MCP hosts ignore it",
        "rename it under a prefix of your own (`acme.io/{rest}`) or without one",
    ),
    "FLU215": Text(
        "`{value}` is {old} to YAML 1.1 readers (PyYAML: FastMCP, fast-agent) but {new} to YAML 1.2 readers "
        "(the entry an MCP server serves): hosts that compare the two refuse the skill",
        "quote it, and every reader takes the same string: `{fix}`",
    ),
    # --- 3xx: packing a skill folder ------------------------------------------------------------
    "FLU301": Text(
        "symbolic link refused: a link is never followed into a bundle",
        "replace the link with a copy of the file or folder it points to",
    ),
    "FLU301 to": Text(
        "symbolic link to `{target}` refused: a link is never followed into a bundle",
        "replace the link with a copy of the file or folder it points to",
    ),
    "FLU302 file": Text(
        "`{name}` looks like a secret; refused",
        "move it out of the skill folder; if it is harmless (an example, a test key), "
        "list its path, relative to the project root, in [tool.flue] allow",
    ),
    "FLU302 file, no project": Text(
        "`{name}` looks like a secret; refused",
        "move it out of the skill folder; if it is harmless (an example, a test key), "
        "rename it so that it no longer looks like a secret: " + NO_PROJECT,
    ),
    "FLU302 template": Text(
        "`{name}` is a template, but its `{variable}` holds a value, not a placeholder; refused",
        "replace the value with a placeholder (`{variable}=` or `{variable}=your-value-here`); if it is "
        "harmless (a test value), list the file's path, relative to the project root, in [tool.flue] allow",
    ),
    "FLU302 template, no project": Text(
        "`{name}` is a template, but its `{variable}` holds a value, not a placeholder; refused",
        "replace the value with a placeholder (`{variable}=` or `{variable}=your-value-here`) (" + NO_PROJECT + ")",
    ),
    "FLU302 folder": Text(
        "`{name}/` holds credentials; refused",
        "move `{name}/` out of the skill folder (add it to [tool.flue] allow only if it is test data)",
    ),
    "FLU302 folder, no project": Text(
        "`{name}/` holds credentials; refused", "move `{name}/` out of the skill folder (" + NO_PROJECT + ")"
    ),
    "FLU303": Text(
        "holds {what}; refused",
        "remove the key from the file; never ship private keys inside a package "
        "(a throwaway test key may be listed in [tool.flue] allow)",
    ),
    "FLU303 no project": Text(
        "holds {what}; refused",
        "remove the key from the file; never ship private keys inside a package (" + NO_PROJECT + ")",
    ),
    "FLU304 folder": Text(
        "`{name}/` skipped: tool output, not part of a skill", "delete `{name}/` from the skill folder"
    ),
    "FLU304 file": Text("`{name}` skipped: editor, OS, VCS or compiler litter", "delete `{name}`"),
    "FLU305": Text(
        "large file packed ({mib:.1f} MiB)",
        "large assets make every install slower; keep them out of skills if the agent does not need them",
    ),
    "FLU305 markdown": Text("large file packed ({mib:.1f} MiB)", "keep markdown() targets small: they are read whole"),
    "FLU306 name": Text(
        "packed although it looks like a secret: allowed by [tool.flue] allow",
        "remove it from [tool.flue] allow if this is not intended",
    ),
    "FLU306 content": Text(
        "packed although it holds {what}: allowed by [tool.flue] allow",
        "remove it from [tool.flue] allow if this is not intended",
    ),
    "FLU307": Text("not a regular file; refused", "only regular files and folders are read or packed; remove it"),
    "FLU307 kind": Text(
        "not a regular file ({kind}); refused", "only regular files and folders are read or packed; remove it"
    ),
    "FLU308": Text("cannot {action}: {reason}", "make it readable, or remove it"),
    "FLU308 changed": Text("{problem}: refused", "the source changed since it was loaded; load it again"),
    "FLU308 removed": Text("was removed since the skill was loaded", "resolve the skill again"),
    "FLU309": Text(
        "name refused ({problem}): no path to it could ever be read at run time",
        "rename it to plain text: no control characters (newlines, tabs), backslashes, "
        "percent-encoded or look-alike dots and slashes, valid UTF-8, at most 255 bytes",
    ),
    # (a skill source's listing: `mount/sources.py`)
    "FLU309 listing": Text("listing() gave {type}, not ListedFile", "list ListedFile(path, size, sha256)"),
    "FLU309 listed path": Text("listed path {path!r} refused: {reason}", "list paths relative to the skill folder"),
    "FLU309 listed size": Text("listed size {size!r} is not a byte count", "list each file's size in bytes"),
    "FLU309 listed digest": Text("listed SHA-256 is not 64 lowercase hex digits", "list the hex digest, or None"),
    "FLU309 listed twice": Text("listed twice", "list each file once"),
    "FLU309 file and folder": Text("listed as a file and as the folder of other files", "list each path once"),
    "FLU310": Text(
        "more than {limit:,} files in one skill; refused (the walk stopped at {path})",
        "a skill is instructions and a few support files: leave out what the agent does not read, "
        "or raise the limit in pyproject.toml: [tool.flue] max-skill-files = {suggested}",
    ),
    "FLU311": Text(
        "skill files add up to {total}, over the {limit} limit; refused",
        "large data does not belong in a skill every install downloads; leave it out, or raise the limit in "
        'pyproject.toml: [tool.flue] max-bundle-size = "{suggested}"',
    ),
    "FLU311 file": Text(
        "{reason}; refused", "keep large data out of skills, or raise the limit: [tool.flue] max-bundle-size"
    ),
    "FLU311 markdown": Text(
        "{size}, over the {limit} limit; refused",
        "keep markdown() targets small: they are read whole (or raise [tool.flue] max-bundle-size)",
    ),
    "FLU312": Text(
        "`{path}` and `{first}` differ only in case: installed on a "
        "case-insensitive file system (macOS, Windows), one overwrites the other",
        "rename one of them",
    ),
    "FLU313": Text(
        "folder nested more than {limit} levels deep inside the skill; refused",
        "flatten the folder tree: installers (pip, setuptools on Python 3.11) cannot write "
        "paths nested about 1,000 levels deep, and no skill needs more than a few",
    ),
    "FLU314": Text(
        "hard-linked file packed: {names} names share these bytes, so a change made through "
        "another name, outside the skill too, changes what ships",
        "replace it with a copy of its own (`cp --remove-destination SOURCE FILE`); strict mode refuses it",
    ),
    "FLU315": Text(
        "holds {what}; refused",
        "revoke it (anyone who saw the file may have it) and read it from the environment instead; "
        "if it is not a live credential (a revoked or test value), list the file's path, relative to the "
        "project root, in [tool.flue] allow",
    ),
    "FLU315 no project": Text(
        "holds {what}; refused",
        "revoke it (anyone who saw the file may have it) and read it from the environment instead; "
        "if it is not a live credential, replace it with a placeholder such as YOUR_API_KEY (" + NO_PROJECT + ")",
    ),
    "FLU316": Text(
        "eval set: {problem}",
        "`flue-skills eval` reads evals/triggers.json as a JSON list of entries "
        '{{"query": "...", "should_trigger": true}}, each with an optional "split" of "train" or "validation"; '
        "fix the entry, or move the file out of evals/ if it is not a trigger eval set",
    ),
    "FLU316 json": Text(
        "eval set is not valid JSON: {problem}",
        "fix the JSON at this line and column; the file is a JSON list of entries "
        '{{"query": "...", "should_trigger": true}}',
    ),
    "FLU316 utf-8": Text("eval set is not valid UTF-8: byte 0x{byte:02x} at offset {offset}", "save the file as UTF-8"),
    "FLU317": Text(
        "hidden text: Unicode tag characters `{run}` ({count:,} in this run), which a model reads as `{spelled}`; refused",
        "remove them: no editor, diff or review shows tag characters, yet every model reads them "
        "(the emoji flags of England, Scotland and Wales, the sequences they exist for, are accepted)",
    ),
    "FLU317 more": Text(
        "{more:,} more runs of Unicode tag characters in this file; refused",
        "remove them all: each file's first runs are shown, at their lines",
    ),
    "FLU318": Text(
        "invisible `{run}` ({names}) in `{context}`",
        "remove it unless the text needs it (right-to-left text, a script that joins letters): a bidirectional "
        "control makes text read other than it runs, a zero-width character hides inside a word; "
        "strict mode refuses it",
    ),
    "FLU318 more": Text(
        "{more:,} more runs of bidirectional or zero-width characters in this file",
        "each file's first runs are shown, at their lines; remove the ones the text does not need",
    ),
}

#: The pieces hints (and a few messages) are put together from, keyed by what they say.
PIECES: dict[str, str] = {
    # FLU106: what PyYAML's complaint most likely means
    "yaml: colon": "a value holds `: ` (colon and space), which YAML reads as a new key; quote the value: `{example}`",
    "yaml: colon example": 'description: "Use when: the user asks for a refund"',
    "yaml: tab": "YAML does not allow tabs for indentation; indent with spaces",
    "yaml: token": "a plain value cannot start with `{char}`; quote the value",
    "yaml: control": "remove the control character, or write it as an escape inside a double-quoted string",
    "yaml: indentation": "check the indentation: every top-level key starts in column 1",
    "yaml: other": "fix the YAML syntax; quoting string values usually helps",
    "yaml: invalid": "invalid YAML",
    # FLU202, FLU209: what a field must be, and what it was
    "expected": "a string",
    "expected metadata": "a mapping of strings",
    "kind": "of type {type}",
    "kind dict": "a mapping",
    "kind list": "a list",
    "kind str": "a string",
    "FLU202 string": "write `{key}` as one string (quote it if it holds `: ` or starts with a special character)",
    "FLU202 metadata": 'write metadata as a mapping of strings:\n  metadata:\n    author: example-org\n    version: "1.0"',
    "FLU202 allowed-tools": "write it as a space-separated string: `allowed-tools: Read Write`",
    # FLU202, FLU211: `allowed-tools` as one string of space-separated tools
    "tools: joined": "write it as a space-separated string: `allowed-tools: {tools}`",
    "tools: spaced": "`allowed-tools` is one string of space-separated tools: joined, `{first}` would read as "
    "{pieces}, which changes what the tools are. Write the tools the skill needs without spaces{keep}, "
    "or leave `allowed-tools` out (experimental; no agent has to enforce it)",
    "tools: piece": "`{piece}`",
    "tools: and": " and ",
    "tools: others": " (the others can stay: `allowed-tools: {tools}`)",
    # FLU203-205: the name rule, in words, and a name that would do
    "name: empty": "must not be empty",
    "name: too long": "is {length} characters long; the limit is {limit}",
    "name: uppercase": "must be lowercase",
    "name: not ascii": "may use only ASCII letters; {chars} is not ASCII",
    "name: not ascii char": "`{char}` (U+{code:04X})",
    "name: other chars": "may hold only a-z, 0-9 and hyphens, not {chars}",
    "name: leading hyphen": "must not start with a hyphen",
    "name: trailing hyphen": "must not end with a hyphen",
    "name: double hyphen": "must not hold two hyphens in a row",
    "name: use folder": "use `name: {directory}`, the folder's name",
    "name: or suggestion": "; or use `name: {suggestion}` and rename the folder to `{suggestion}`",
    "name: suggestion": "use `name: {suggestion}` and name the directory `{suggestion}`",
    "name: rule": "use 1-{limit} lowercase letters, digits and single hyphens, e.g. `pdf-tools`",
    "FLU205 rename": "rename the directory to `{name}` or set `name: {directory}`",
    "FLU205 set": "set `name: {directory}`",
    # FLU210: an unknown field, and where it belongs
    "FLU210 typo": "did you mean `{close}`?",
    "FLU210 extension": "`{key}` is another agent's extension, not part of the Agent Skills spec; other agents "
    "ignore it. Keep it if you target that agent, or move it under `metadata:`",
    "FLU210 line": " (line {line})",
    "FLU210 twice": "not part of the Agent Skills spec, and `metadata:`{where} already holds `{key}`: "
    "keep one of the two, under `metadata:`",
    "FLU210 add": "add it to the `metadata:` block{where}",
    "FLU210 move": "move it under `metadata:`",
    "FLU210 block": "not part of the Agent Skills spec; {lead}, whose values are strings:\n{block}",
    "FLU210 one more": "  # ... {more} more entry",
    "FLU210 more": "  # ... {more} more entries",
    # FLU215: what a plain scalar is to a YAML reader
    "yaml value: string": "a string",
    "yaml value: true": "`true`",
    "yaml value: false": "`false`",
    "yaml value: null": "`null`",
    "yaml value: number": "the number {number}",
    "yaml value: date": "a date",
    "yaml value: timestamp": "a timestamp",
    # FLU308: how a source's bytes differ from its listing (`trees.listing_mismatch`)
    "listing: size": "the source gave {given:,} bytes where its listing says {listed:,}",
    "listing: digest": "the source gave bytes whose SHA-256 differs from its listing",
    # any code: what `diagnostics.bounded` says in place of a rule's diagnostics about one file past the first few
    "more: message": "and {count:,} more {code} in this file, not shown",
    "more: hint": "each rule reports the first {shown} of its problems in a file; fix those and the others show",
    # FLU3xx of `define_skill(files=...)`: the walk's words, said of the argument
    "define: file": "files[{path!r}]: {message}",
    "define: files": "files: {message}",
}


def piece(key: str, /, **values: object) -> str:
    """`PIECES[key]` filled with `values`."""
    return PIECES[key].format(**values)


def words(key: str, /, **values: object) -> tuple[str, str]:
    """The message and hint `TEXTS[key]` says, filled with `values`."""
    text = TEXTS[key]
    return text.message.format(**values), text.hint.format(**values)
