"""Every diagnostic code in one table, one row per code: its default severity, what it means (the diagnostics
page's words) and what it says in each of its cases. Rewording a message touches this file only.

The code that finds a problem names a key and the values to fill in (`diagnostic("FLU304 folder", shown,
name=name)`), never words. A key is a code, or a code and the case it words when one code has several
(`FLU304 folder`, `FLU304 file`). Texts are `str.format` templates with named fields; a `{hint}` field is
filled with a hint put together from `PIECES` (a suggested name, a YAML block), which are keyed the same way.
`tests/test_messages.py` holds the table and its users to each other. Codes are stable; the words may improve.
Four summaries quote the schema's limits, which `codes.SUMMARIES` fills in: this module must not load the schema.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["CODES", "NO_PROJECT", "PIECES", "Code", "Text", "piece", "words"]


class Text(NamedTuple):
    """What a diagnostic says and how to fix it, as templates."""

    message: str
    hint: str = ""


class Code(NamedTuple):
    """A code's row: its default severity (`diagnostics.Severity`'s value), what it means, and its texts by case
    (`""`: the code alone)."""

    severity: str
    summary: str
    texts: dict[str, Text]


E, W = "error", "warning"

#: Why the hints outside a project do not point to `[tool.flue] allow`.
NO_PROJECT = "this skill belongs to no project (no pyproject.toml), so no [tool.flue] allow can let it through"

_EXAMPLE = "---\nname: my-skill\ndescription: What it does and when to use it.\n---"
_NO_SKILL = (
    "pass a skill folder, a SKILL.md, a folder of skills or a project folder (one with a pyproject.toml); "
    "create a skill with `flue-skills new NAME`"
)
_BAD_BUNDLE = (
    "a conflicting build configuration (force-include, shared-data, data-files, artifacts, another hook) "
    "or a bug; the artifact was deleted"
)

#: Every diagnostic code, in the diagnostics page's order (tests/test_project.py and tests/test_diagnostics_page.py
#: hold the page to it), keyed `(code, severity, summary)`: its words, or its cases' words by case.
_ROWS: dict[tuple[str, str, str], Text | dict[str, Text]] = {
    # --- 1xx: the SKILL.md file and its frontmatter ------------------------------------------------------------
    ("FLU100", E, "a path given to `check` holds no skill"): {
        "empty": Text("holds no skill: no SKILL.md in this folder or below it", _NO_SKILL),
        "kind": Text("holds no skill: {kind}, not a folder or a file", _NO_SKILL),
        "project": Text(
            "holds no skill: its modules reference no skill or markdown file and it holds no SKILL.md "
            "(scanned {modules})",
            _NO_SKILL,
        ),
    },
    ("FLU101", E, "skill file missing or not named exactly `SKILL.md`"): {
        "misnamed": Text("a skill file must be named exactly `SKILL.md`, not `{name}`", "rename it to SKILL.md"),
        "missing": Text(
            "no SKILL.md in this skill folder",
            "a skill folder needs a SKILL.md; create one with `flue-skills new {name}`",
        ),
        "folder": Text(
            "`SKILL.md` is a folder, not a file",
            "a skill's SKILL.md is a file holding its frontmatter and instructions: rename this folder, "
            "then write the file (`flue-skills new {name}` shows its shape)",
        ),
    },
    ("FLU102", E, "file is not valid UTF-8 or holds a NUL byte"): {
        "utf-8": Text("not valid UTF-8: byte 0x{byte:02x} at offset {offset}", "save the file as UTF-8"),
        "nul": Text("holds a NUL byte", "remove the NUL byte: SKILL.md must be text"),
    },
    ("FLU103", E, "no frontmatter: the file must start with a `---` line"): {
        "": Text("no frontmatter", "start SKILL.md with a frontmatter block:\n" + _EXAMPLE),
        "late": Text("no frontmatter", "remove what comes before the first `---` line: it must be the very first line"),
    },
    ("FLU104", E, "frontmatter is never closed by a `---` line"): Text(
        "frontmatter opened on line 1 is never closed", "end the frontmatter with a line holding only `---`"
    ),
    ("FLU105", E, "frontmatter is larger than the limit (64 KiB unless `max-frontmatter-size` says otherwise)"): Text(
        "frontmatter is larger than the {limit:,}-byte limit",
        "keep only name, description and short fields in the frontmatter; put the rest in the body "
        "(a project may raise the limit: [tool.flue] max-frontmatter-size in pyproject.toml)",
    ),
    ("FLU106", E, "frontmatter is not valid YAML"): {
        "": Text("invalid YAML: {problem}", "{hint}"),
        "in context": Text("invalid YAML: {problem} ({context})", "{hint}"),
        "character": Text("invalid YAML: character #x{code:04x} is not allowed", "{hint}"),
        "other": Text("invalid YAML: {problem}"),
    },
    ("FLU107", E, "frontmatter is not a YAML mapping"): {
        "empty": Text("frontmatter is empty", "add at least the required fields:\n" + _EXAMPLE),
        "list": Text(
            "frontmatter is a list, not a mapping of fields", "write fields as `key: value` lines:\n" + _EXAMPLE
        ),
        "string": Text(
            "frontmatter is a plain string, not a mapping of fields", "write fields as `key: value` lines:\n" + _EXAMPLE
        ),
    },
    ("FLU108", E, "duplicate key"): Text(
        "duplicate key `{key}` (first on line {first})", "keep one of them: YAML readers disagree on which one wins"
    ),
    ("FLU109", E, "YAML feature refused: alias, complex key, second document or deep nesting"): {
        "documents": Text("frontmatter holds more than one YAML document", "remove the `...` line"),
        "alias": Text(
            "YAML alias `*{anchor}` refused",
            "write the value out in full: SKILL.md frontmatter allows no anchors or aliases",
        ),
        "complex key": Text("a mapping or sequence used as a key", "keys must be plain strings"),
        "nesting": Text(
            "frontmatter nests deeper than {limit} levels",
            "flatten the structure: frontmatter values are strings and one level of metadata",
        ),
    },
    ("FLU110", E, "file cannot be read"): Text("cannot read: {reason}", "check the file's permissions"),
    ("FLU111", W, "SKILL.md starts with a UTF-8 byte-order mark, which most other readers refuse"): Text(
        "starts with a UTF-8 byte-order mark: most other readers of SKILL.md then find no frontmatter and refuse it",
        "save the file as UTF-8 without a byte-order mark",
    ),
    # --- 2xx: frontmatter fields -------------------------------------------------------------------------------
    ("FLU201", E, "required field missing"): {
        "": Text("required field `{key}` is missing", "add `{key}:`"),
        "name": Text("required field `name` is missing", "add `name: {directory}` (the skill directory's name)"),
        "description": Text(
            "required field `description` is missing", "add `description: What the skill does and when to use it.`"
        ),
    },
    ("FLU202", E, "field has the wrong type"): {
        "": Text("`{key}` must be {expected}, not {kind}", "{hint}"),
        "rule": Text("`{key}` {reason}", "see `flue-skills schema` for the rules"),
        # (the arguments of `define_skill`: `mount/define.py`)
        "define metadata": Text("`metadata` must be a mapping of strings, not {type}"),
        "define allowed_tools": Text("`allowed_tools` must be a string or a list of tool names without spaces"),
        "define instructions": Text("`instructions` must be a string, not {type}"),
        "define blank": Text(
            "`instructions` is blank: activating the skill would give the model nothing to follow",
            "write the steps the model should take once it activates the skill (the body of its SKILL.md)",
        ),
        "define surrogate": Text("`{key}` holds a lone surrogate, which UTF-8 cannot encode"),
        "define files": Text("`files` must be a mapping of relative paths to str or bytes, not {type}"),
        "define file path": Text(
            "files[{path!r}]: {reason}", "use a relative POSIX path without `..`, like 'docs/reference.md'"
        ),
        "define SKILL.md": Text(
            "files[{path!r}]: SKILL.md is generated from the other arguments", "pass the body as `instructions`"
        ),
        "define file surrogate": Text("files[{path!r}]: holds a lone surrogate, which UTF-8 cannot encode"),
        "define file content": Text("files[{path!r}]: content must be str or bytes, not {type}"),
        "define file and folder": Text("files[{path!r}]: is a file and also a folder of other files"),
    },
    ("FLU203", E, "`name` is too long ({name[maxLength]} characters at most)"): Text(
        "name `{name}` {problems}", "{hint}"
    ),
    ("FLU204", E, "`name` breaks the naming rule `{name_pattern}`"): Text("name `{name}` {problems}", "{hint}"),
    ("FLU205", E, "`name` differs from the skill's directory name"): Text(
        "name `{name}` differs from its directory `{directory}`", "{hint}"
    ),
    ("FLU206", E, "`description` is empty"): Text("description is empty", "say what the skill does and when to use it"),
    ("FLU207", E, "`description` is too long ({description[maxLength]} characters at most)"): Text(
        "description is {length} characters long; the limit is {limit}",
        "shorten it to what the skill does and when to use it; "
        "details belong in the body, which the agent reads on activation",
    ),
    (
        "FLU208",
        E,
        "`compatibility` is empty or too long ({compatibility[minLength]}-{compatibility[maxLength]} characters)",
    ): Text(
        "compatibility must be {minimum}-{maximum} characters, not {length}",
        "state the environment needs briefly, e.g. `compatibility: Requires git and network access`",
    ),
    ("FLU209", E, "`metadata` value is not a string"): Text(
        "metadata value `{key}` is {kind}; metadata values must be strings",
        'flatten it into string values (e.g. `{key}.field: "value"`) or write it as one quoted string',
    ),
    ("FLU210", W, "unknown top-level field"): Text("unknown field `{key}`", "{hint}"),
    ("FLU211", W, "`allowed-tools` looks comma-separated"): Text(
        "allowed-tools looks comma-separated; the spec separates tools with spaces", "{hint}"
    ),
    ("FLU212", W, "a skill nested inside another skill's directory"): Text(
        "skill `{inner}` sits inside skill `{outer}` ({display}); "
        "it is packed as a support file of `{outer}`, not as a skill of its own",
        "move `{inner}` out of `{outer}` into a sibling folder",
    ),
    ("FLU213", W, "`description` is still the placeholder `flue-skills new` writes"): Text(
        "description is still the placeholder `flue-skills new` wrote",
        "replace it with what the skill does and when the agent should use it: "
        "the catalog line is all the model sees when it decides whether to activate the skill",
    ),
    ("FLU214", W, "a `metadata` key under the prefix reserved for MCP extensions (`io.modelcontextprotocol/`)"): Text(
        "metadata key `{key}` is under `io.modelcontextprotocol/`, a prefix reserved for keys MCP extensions "
        "define (none defines this one); MCP hosts ignore it",
        "rename it under a prefix of your own (`acme.io/{rest}`) or without one",
    ),
    (
        "FLU215",
        W,
        "plain value or key that YAML 1.1 readers type otherwise than YAML 1.2 (`yes`, `0777`, `0o17`, a date, `1_000`, `1:30`): other hosts refuse the skill",
    ): Text(
        "`{value}` is {old} to YAML 1.1 readers (PyYAML: FastMCP, fast-agent) but {new} to YAML 1.2 readers "
        "(the entry an MCP server serves): hosts that compare the two refuse the skill",
        "quote it, and every reader takes the same string: `{fix}`",
    ),
    # --- 3xx: packing a skill folder ---------------------------------------------------------------------------
    ("FLU301", E, "symbolic link refused"): {
        "": Text(
            "symbolic link refused: a link is never followed into a bundle",
            "replace the link with a copy of the file or folder it points to",
        ),
        "to": Text(
            "symbolic link to `{target}` refused: a link is never followed into a bundle",
            "replace the link with a copy of the file or folder it points to",
        ),
        "reference": Text(
            "`{spec}` goes through the symbolic link {link}; refused",
            "replace the link with the real folder or file: links are never followed into a bundle",
        ),
        "folder": Text(
            "skill folder reached through the symbolic link {link}; refused",
            "replace the link with the real folder: links are never followed into an artifact",
        ),
    },
    ("FLU302", E, "secret refused (by file or folder name, or a `.env` template holding a value)"): {
        "file": Text(
            "`{name}` looks like a secret; refused",
            "move it out of the skill folder; if it is harmless (an example, a test key), "
            "list its path, relative to the project root, in [tool.flue] allow",
        ),
        "file, no project": Text(
            "`{name}` looks like a secret; refused",
            "move it out of the skill folder; if it is harmless (an example, a test key), "
            "rename it so that it no longer looks like a secret: " + NO_PROJECT,
        ),
        "template": Text(
            "`{name}` is a template, but its `{variable}` holds a value, not a placeholder; refused",
            "replace the value with a placeholder (`{variable}=` or `{variable}=your-value-here`); if it is "
            "harmless (a test value), list the file's path, relative to the project root, in [tool.flue] allow",
        ),
        "template, no project": Text(
            "`{name}` is a template, but its `{variable}` holds a value, not a placeholder; refused",
            "replace the value with a placeholder (`{variable}=` or `{variable}=your-value-here`) (" + NO_PROJECT + ")",
        ),
        "folder": Text(
            "`{name}/` holds credentials; refused",
            "move `{name}/` out of the skill folder (add it to [tool.flue] allow only if it is test data)",
        ),
        "folder, no project": Text(
            "`{name}/` holds credentials; refused", "move `{name}/` out of the skill folder (" + NO_PROJECT + ")"
        ),
    },
    (
        "FLU303",
        E,
        "file holds a private key (PEM, in any container: comments, strings, JSON, HTML, URL-encoding, listings, base64, UTF-16/32)",
    ): {
        "": Text(
            "holds {what}; refused",
            "remove the key from the file; never ship private keys inside a package "
            "(a throwaway test key may be listed in [tool.flue] allow)",
        ),
        "no project": Text(
            "holds {what}; refused",
            "remove the key from the file; never ship private keys inside a package (" + NO_PROJECT + ")",
        ),
    },
    ("FLU304", W, "noise skipped (VCS, tool caches, build output, editor files)"): {
        "folder": Text("`{name}/` skipped: tool output, not part of a skill", "delete `{name}/` from the skill folder"),
        "file": Text("`{name}` skipped: editor, OS, VCS or compiler litter", "delete `{name}`"),
    },
    ("FLU305", W, "file over 1 MiB packed"): {
        "": Text(
            "large file packed ({mib:.1f} MiB)",
            "large assets make every install slower; keep them out of skills if the agent does not need them",
        ),
        "markdown": Text("large file packed ({mib:.1f} MiB)", "keep markdown() targets small: they are read whole"),
    },
    (
        "FLU306",
        W,
        "file that looks like a secret, or holds a key or token, packed because `[tool.flue] allow` lists it",
    ): {
        "name": Text(
            "packed although it looks like a secret: allowed by [tool.flue] allow",
            "remove it from [tool.flue] allow if this is not intended",
        ),
        "content": Text(
            "packed although it holds {what}: allowed by [tool.flue] allow",
            "remove it from [tool.flue] allow if this is not intended",
        ),
    },
    ("FLU307", E, "not a regular file (FIFO, socket, device)"): {
        "": Text("not a regular file; refused", "only regular files and folders are read or packed; remove it"),
        "kind": Text(
            "not a regular file ({kind}); refused", "only regular files and folders are read or packed; remove it"
        ),
    },
    ("FLU308", E, "file or folder cannot be read"): {
        "": Text("cannot {action}: {reason}", "make it readable, or remove it"),
        "changed": Text("{problem}: refused", "the source changed since it was loaded; load it again"),
        "removed": Text("was removed since the skill was loaded", "resolve the skill again"),
    },
    (
        "FLU309",
        E,
        "file or folder name the run time could never serve (control character, backslash, not UTF-8, encoded or look-alike dot or slash, over 255 bytes)",
    ): {
        "": Text(
            "name refused ({problem}): no path to it could ever be read at run time",
            "rename it to plain text: no control characters (newlines, tabs), backslashes, "
            "percent-encoded or look-alike dots and slashes, valid UTF-8, at most 255 bytes",
        ),
        # (a skill source's listing: `mount/sources.py`)
        "listing": Text("listing() gave {type}, not ListedFile", "list ListedFile(path, size, sha256)"),
        "listed path": Text("listed path {path!r} refused: {reason}", "list paths relative to the skill folder"),
        "listed size": Text("listed size {size!r} is not a byte count", "list each file's size in bytes"),
        "listed digest": Text("listed SHA-256 is not 64 lowercase hex digits", "list the hex digest, or None"),
        "listed twice": Text("listed twice", "list each file once"),
        "file and folder": Text("listed as a file and as the folder of other files", "list each path once"),
    },
    ("FLU310", E, "skill holds more files than the limit (10,000 unless `max-skill-files` says otherwise)"): Text(
        "more than {limit:,} files in one skill; refused (the walk stopped at {path})",
        "a skill is instructions and a few support files: leave out what the agent does not read, "
        "or raise the limit in pyproject.toml: [tool.flue] max-skill-files = {suggested}",
    ),
    (
        "FLU311",
        E,
        "skill files add up to more than the limit (100 MiB per build unless `max-bundle-size` says otherwise)",
    ): {
        "": Text(
            "skill files add up to {total}, over the {limit} limit; refused",
            "large data does not belong in a skill every install downloads; leave it out, or raise the limit in "
            'pyproject.toml: [tool.flue] max-bundle-size = "{suggested}"',
        ),
        "file": Text(
            "{reason}; refused", "keep large data out of skills, or raise the limit: [tool.flue] max-bundle-size"
        ),
        "markdown": Text(
            "{size}, over the {limit} limit; refused",
            "keep markdown() targets small: they are read whole (or raise [tool.flue] max-bundle-size)",
        ),
        "bundles": Text(
            "the skill bundles of this build add up to {total}, over the {limit} limit",
            "largest: {largest}; leave large data out of skills, or raise the limit: [tool.flue] max-bundle-size",
        ),
    },
    ("FLU312", W, "two files whose paths differ only in case"): Text(
        "`{path}` and `{first}` differ only in case: installed on a "
        "case-insensitive file system (macOS, Windows), one overwrites the other",
        "rename one of them",
    ),
    ("FLU313", E, "folder nested more than 64 levels deep inside a skill"): Text(
        "folder nested more than {limit} levels deep inside the skill; refused",
        "flatten the folder tree: installers (pip, setuptools on Python 3.11) cannot write "
        "paths nested about 1,000 levels deep, and no skill needs more than a few",
    ),
    ("FLU314", W, "hard-linked file packed (another name shares its bytes)"): Text(
        "hard-linked file packed: {names} names share these bytes, so a change made through "
        "another name, outside the skill too, changes what ships",
        "replace it with a copy of its own (`cp --remove-destination SOURCE FILE`); strict mode refuses it",
    ),
    (
        "FLU315",
        E,
        "file holds a credential token (AWS key pair, GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic, Google, Hugging Face, PyPI, npm)",
    ): {
        "": Text(
            "holds {what}; refused",
            "revoke it (anyone who saw the file may have it) and read it from the environment instead; "
            "if it is not a live credential (a revoked or test value), list the file's path, relative to the "
            "project root, in [tool.flue] allow",
        ),
        "no project": Text(
            "holds {what}; refused",
            "revoke it (anyone who saw the file may have it) and read it from the environment instead; "
            "if it is not a live credential, replace it with a placeholder such as YOUR_API_KEY (" + NO_PROJECT + ")",
        ),
    },
    (
        "FLU316",
        W,
        "a skill's trigger eval set (`evals/triggers.json`) is not valid: not JSON, or not a list of queries",
    ): {
        "": Text(
            "eval set: {problem}",
            "`flue-skills eval` reads evals/triggers.json as a JSON list of entries "
            '{{"query": "...", "should_trigger": true}}, each with an optional "split" of "train" or "validation"; '
            "fix the entry, or move the file out of evals/ if it is not a trigger eval set",
        ),
        "json": Text(
            "eval set is not valid JSON: {problem}",
            "fix the JSON at this line and column; the file is a JSON list of entries "
            '{{"query": "...", "should_trigger": true}}',
        ),
        "utf-8": Text("eval set is not valid UTF-8: byte 0x{byte:02x} at offset {offset}", "save the file as UTF-8"),
    },
    ("FLU317", E, "text file holds Unicode tag characters: invisible text every model reads (emoji flags aside)"): Text(
        "hidden text: Unicode tag characters `{run}` ({count:,} in this run), which a model reads as `{spelled}`; refused",
        "remove them: no editor, diff or review shows tag characters, yet every model reads them "
        "(the emoji flags of England, Scotland and Wales, the sequences they exist for, are accepted)",
    ),
    (
        "FLU318",
        W,
        "text file holds bidirectional controls or zero-width characters (a joiner between emoji aside)",
    ): Text(
        "invisible `{run}` ({names}) in `{context}`",
        "remove it unless the text needs it (right-to-left text, a script that joins letters): a bidirectional "
        "control makes text read other than it runs, a zero-width character hides inside a word; "
        "strict mode refuses it",
    ),
    # --- 4xx: references in Python source and what a build does with them --------------------------------------
    ("FLU401", E, "dynamic reference: the spec must be one string literal"): {
        "": Text(
            "dynamic {kind} reference: the spec is {what}, not one string literal",
            "the build finds {kind}s by reading the source; write the spec as one string literal, "
            'e.g. `{kind}("{example}")`, and pick between several literal calls if you must',
        ),
        "missing": Text("`{kind}()` needs one string literal spec", 'write `{kind}("{example}")`'),
    },
    ("FLU402", E, "Python file does not parse"): {
        "": Text(
            "does not parse: {problem}",
            "fix the syntax error; every module of a package is scanned for skill references",
        ),
        "deep": Text(
            "does not parse: nested too deeply for Python's parser",
            "split the deeply nested expression: Python cannot compile this module either",
        ),
    },
    ("FLU403", E, "malformed spec: `skill()` must end in `/SKILL.md`, `markdown()` in `.md`"): Text(
        "malformed {kind} spec `{spec}`: {problem}", 'for example `{kind}("{example}")`'
    ),
    ("FLU404", E, "referenced skill folder or markdown file missing"): {
        "skill": Text("skill folder {shown} not found (spec `{spec}`)", "{hint}"),
        "markdown": Text("markdown file {shown} not found (spec `{spec}`)", "{hint}"),
        "package": Text(
            "package `{top}` is importable here but holds no `{rest}`",
            "check the spec against the files of `{top}` (found at {location})",
        ),
    },
    ("FLU405", W, "package spec not importable at build time; resolved at run time"): Text(
        "package `{top}` is not importable in the build environment; `{spec}` is resolved at run time",
        "add the distribution providing `{top}` to [build-system] requires to check it at build time",
    ),
    ("FLU406", E, "reference leaves the project folder"): Text(
        "`{spec}` resolves to {path}, outside the project folder {root}",
        "keep skills inside the project, or ship them in a package and use a package spec (`pkg/skill/SKILL.md`)",
    ),
    ("FLU407", E, "referencing module is not inside a regular package"): Text(
        "module `{module}` is not inside a regular package, so no bundle can hold its {kind}s",
        "move the module into a package (a folder with an __init__.py)",
    ),
    ("FLU408", E, "skill folder overlaps Python code (holds `__init__.py` or the referencing module)"): Text(
        "skill folder {shown} holds Python code (an __init__.py or the module that references it)",
        "give the skill a folder of its own, next to the code: its files are packed apart from the package",
    ),
    ("FLU409", E, "built artifact holds a file that was not vetted"): {
        "changed": Text("bytes differ from the vetted file (changed during the build?)", _BAD_BUNDLE),
        "bundle": Text("not a vetted file, yet it sits in a skill bundle", _BAD_BUNDLE),
        "original": Text("left in a referenced skill's original folder; only the bundled copy may ship", _BAD_BUNDLE),
        "unreadable": Text("cannot be read back ({reason}): no installer could either", _BAD_BUNDLE),
        "missing": Text("a vetted file is missing from the artifact", _BAD_BUNDLE),
        "twice": Text("a second entry of this name: which one an installer keeps is undefined", _BAD_BUNDLE),
        "carried": Text(
            "{what}; carried by {route}",
            "only a vetted copy of a skill's file may ship: {fix}, or move the file out of the skill folder; "
            "the artifact was deleted",
        ),
    },
    (
        "FLU410",
        W,
        "skill folder in what the build selects is not referenced: only its vetted files ship, as plain files",
    ): Text(
        "skill `{name}` is not referenced by any `skill()` call the build found: "
        "it ships as plain files, only those the vetting kept",
        'reference it (`skill("./.../{name}/SKILL.md")`) or list it in [tool.flue] exports to '
        "bundle it, or leave the folder out of the build with the backend's own exclusion rules",
    ),
    ("FLU411", W, "vetted skill file left out of an artifact: the project's own exclusion rules exclude it"): Text(
        "left out of the {artifact}: {rule}",
        "the project's own exclusions win; move the file out of the skill folder if it is not "
        "meant to ship, or change the rule if it is",
    ),
    ("FLU412", E, "a referenced skill's `SKILL.md` or a `markdown()` target is excluded by the project's own rules"): {
        "skill": Text(
            "the SKILL.md of a referenced skill is left out of the {artifact}: {rule}",
            "a skill cannot ship without its SKILL.md: change the rule, or stop referencing the skill",
        ),
        "markdown": Text(
            "a `markdown()` target is left out of the {artifact}: {rule}",
            "the reference cannot resolve without its file: change the rule, or remove the reference",
        ),
    },
    ("FLU413", E, "package spec names a skill or file its distribution does not export (`[tool.flue] exports`)"): {
        "": Text(
            "`{spec}` is not exported: the distribution providing `{top}` declares [tool.flue] exports",
            "{guess}it exports {exports}; use one of those, "
            "or ask its maintainers to list the spec in their [tool.flue] exports",
        ),
        "nothing": Text(
            "`{spec}` is not exported: the distribution providing `{top}` declares [tool.flue] exports",
            "it exports nothing, so none of its skills resolve from other packages; "
            "ask its maintainers to list the spec in their [tool.flue] exports",
        ),
    },
    ("FLU414", E, "`[tool.flue] exports` names a spec outside the project's packages"): Text(
        "[tool.flue] exports `{spec}`, which {where}",
        "an export starts with a package this project builds, like {packages}, and lies inside a regular package "
        "(a folder with __init__.py) that holds its bundle; another distribution's skills are exported by that "
        "distribution",
    ),
    (
        "FLU415",
        E,
        "spec without `./` names no importable package but a file next to the module: a relative spec needs `./`",
    ): Text(
        "`{spec}` is read as a package spec, and no importable package `{top}` holds it, but "
        "{beside} exists next to the module: a spec relative to the module starts with `./`",
        'did you mean `./{spec}`? write {kind}("./{spec}")',
    ),
    # --- 5xx: the project's build configuration ----------------------------------------------------------------
    (
        "FLU501",
        E,
        "the project needs flue-skills at build time but its build does not run it (hook table, `[tool.flue]` or build requirement missing)",
    ): {
        "backend": Text(
            "{why}, but the project builds with `{backend}`, which runs no flue-skills hook: its wheel would ship no skills",
            "build with hatchling (and the hatch-flue-skills hook) or setuptools (and the flue-skills plugin); "
            "see Building wheels with skills in the documentation (docs/concepts/bundles.md)",
        ),
        "hook table": Text(
            "{why}, but `[{table}]` is not read by hatchling, whose hook tables are under `{name}s`: {outcome}",
            "rename the table:\n[{name}s.{hook}]",
        ),
        "hook name": Text(
            "{why}, but the hook table `[{table}]` names no hook hatchling knows: the hook is `{hook}`, "
            "and hatchling fails with `Unknown build hook`",
            "rename the table:\n[{name}.{hook}]",
        ),
        "disabled": Text(
            "{why}, but `[{table}]` sets `enable-by-default = false`: hatchling runs the hook for the {which} "
            "only when HATCH_BUILD_HOOKS_ENABLE (or HATCH_BUILD_HOOK_ENABLE_FLUE-SKILLS) is set, so a plain "
            "build does not: {outcome}",
            "delete the line from [{table}]:\nenable-by-default = false",
        ),
        "no hook": Text(
            "{why}, but hatchling runs no flue-skills hook for the {which}: {outcome}",
            "add the hook's table to pyproject.toml (it may stay empty):\n[tool.hatch.build.hooks.{hook}]",
        ),
        "no build-system": Text(
            "{why}, but pyproject.toml has no [build-system] table: front ends build it with setuptools "
            "without the flue-skills plugin, so its wheel would ship no skills",
            'add to pyproject.toml:\n[build-system]\nrequires = ["setuptools>=77", "flue-skills"]\n'
            'build-backend = "setuptools.build_meta"\n\n[tool.flue]',
        ),
        "table": Text(
            "{why}, but the table `[{table}]` opts in to nothing: the flue-skills plugin reads `[tool.flue]`, and "
            "leaves setuptools builds without it alone, so its wheel would ship no skills",
            "rename the table:\n[tool.flue]",
        ),
        "no table": Text(
            "{why}, but pyproject.toml has no [tool.flue] table: the flue-skills plugin leaves setuptools "
            "builds without one alone, so its wheel would ship no skills",
            "add the table to pyproject.toml (it may stay empty):\n[tool.flue]",
        ),
        "requires": Text(
            "{why}, but `{name}` is not in [build-system] requires: in an isolated build (pip, `python -m build`) "
            "{outcome}",
            "add it to the list in pyproject.toml:\nrequires = [{example}]",
        ),
    },
    (
        "FLU502",
        E,
        "the project's code calls `skill()`/`markdown()` but its runtime dependencies lack `flue-skills`",
    ): Text(
        "{references}, which import flue_runtime where the wheel is installed, but `{runtime}` "
        "is not among the project's runtime dependencies: the installed wheel would fail with "
        "`ModuleNotFoundError: No module named 'flue_runtime'`",
        "add it to [project] dependencies in pyproject.toml:\ndependencies = [{example}]",
    ),
    ("FLU503", E, "the build backend rejects the project's configuration"): Text(
        "{backend} rejects the project's configuration, so its build would fail: {why}",
        "fix the configuration {backend} names; `python -m build` shows the same error with its context",
    ),
}
CODES: dict[str, Code] = {
    code: Code(severity, summary, texts if isinstance(texts, dict) else {"": texts})
    for (code, severity, summary), texts in _ROWS.items()
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
    # FLU308: what the OS refused to do
    "FLU308 read": "read",
    "FLU308 stat": "stat",
    "FLU308 list folder": "list this folder",
    "FLU308 list files": "list the skill's files",
    # FLU308: how a source's bytes differ from its listing (`trees.listing_mismatch`)
    "listing: size": "the source gave {given:,} bytes where its listing says {listed:,}",
    "listing: digest": "the source gave bytes whose SHA-256 differs from its listing",
    # FLU316: an eval set's problem at its entry, or before any
    "FLU316 entry": "entry {index}: {problem}",
    "FLU316 not json": "not readable as JSON: {reason}",
    # FLU100, FLU501, FLU502: what a project holds, counted
    "module": "{count} module",
    "modules": "{count} modules",
    "reference": "the code makes {count} skill()/markdown() reference",
    "references": "the code makes {count} skill()/markdown() references",
    "folder": "the build would ship {count} skill folder",
    "folders": "the build would ship {count} skill folders",
    "and": " and ",
    # FLU401: what a spec that is not one string literal is
    "spec: f-string": "an f-string",
    "spec: variable": "the variable `{name}`",
    "spec: concatenation": "a concatenation",
    "spec: computed": "a computed expression",
    "spec: call": "a function call",
    "spec: constant": "a {type} constant",
    "spec: attribute": "an attribute",
    "spec: expression": "an expression",
    # FLU404: how a spec that names nothing might be fixed
    "FLU404 did you mean": "did you mean `{spec}`?",
    "FLU404 relative": "a relative spec starts from the folder of the module that calls it; fix the path or create "
    "the file",
    "FLU404 package": "the first segments of a package spec name a package of this project; fix the path or create "
    "the file",
    # FLU409: what an artifact's member is, what the vetting made of its file, and how to stop what put it there
    "FLU409 link": "taken from {source}, a symbolic link into a skill folder",
    "FLU409 is": "is {about}",
    "FLU409 differs": "is {about}, but these bytes differ from it",
    "FLU409 below": "lies below {about}",
    "FLU409 ends": "ends in the path of {about}",
    "FLU409 bytes": "holds the bytes of {about}",
    "FLU409 about": "{path}: {verdict}",
    "FLU409 about folder": "{path} of the skill folder {folder}: {verdict}",
    "verdict: vetted": "a vetted file",
    "verdict: outside": "outside every skill folder",
    "verdict: noise folder": "inside a noise folder, never vetted",
    "verdict: link": "a symbolic link, never followed",
    "verdict: refused": "refused by the vetting, {codes}",
    "verdict: noise": "noise, never vetted",
    "verdict: not kept": "not a file the vetting kept",
    "FLU409 unknown route": "find what put it there (a build hook, a custom command) and stop it",
    "FLU409 route": "take it out of {route}",
    # FLU413: the export a spec may have meant
    "FLU413 guess": "did you mean `{close}`? ",
    # FLU414: where an export lies, and what one looks like
    "FLU414 no package": "names no package of this project",
    "FLU414 no bundle": "lies in no regular package",
    "FLU414 package": "`{name}/...`",
    "FLU414 example": "`acme/...`",
    # FLU501: what a build without the hook makes
    "FLU501 no skills": "its wheel would ship no skills",
    "FLU501 unvetted": "its skill folders would ship unvetted",
    "FLU501 hatchling": "hatchling fails with `Unknown build hook: flue-skills`",
    "FLU501 setuptools": "setuptools runs without the flue-skills plugin and the wheel ships no skills",
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
    """The message and hint of `key` (`FLU304 folder`: FLU304's case `folder`), filled with `values`."""
    code, _, case = key.partition(" ")
    text = CODES[code].texts[case]
    return text.message.format(**values), text.hint.format(**values)
