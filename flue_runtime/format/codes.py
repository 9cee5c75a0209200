"""What each diagnostic code means, in the words of the diagnostics page's table (tested against it).

A module of its own because four summaries quote the schema's limits (the schema is the one source of the
field rules), and `format.diagnostics`, which every error imports, must not load the schema and its validator.
"""

from __future__ import annotations

from flue_runtime.format.schema import field_rule

__all__ = ["SUMMARIES"]

_NAME, _DESCRIPTION, _COMPATIBILITY = (field_rule(name) for name in ("name", "description", "compatibility"))
#: The name pattern as people read it: `(?!\n)` only keeps Python's `$` from accepting a trailing newline.
_NAME_PATTERN = _NAME["pattern"].replace("(?!\\n)", "")

#: Every code of `format.diagnostics.CODES`, in its order, and what it means (tests/test_project.py keeps them
#: equal, and equal to the diagnostics page's table).
SUMMARIES: dict[str, str] = {
    # 1xx: the SKILL.md file and its frontmatter
    "FLU100": "a path given to `check` holds no skill",
    "FLU101": "skill file missing or not named exactly `SKILL.md`",
    "FLU102": "file is not valid UTF-8 or holds a NUL byte",
    "FLU103": "no frontmatter: the file must start with a `---` line",
    "FLU104": "frontmatter is never closed by a `---` line",
    "FLU105": "frontmatter is larger than the limit (64 KiB unless `max-frontmatter-size` says otherwise)",
    "FLU106": "frontmatter is not valid YAML",
    "FLU107": "frontmatter is not a YAML mapping",
    "FLU108": "duplicate key",
    "FLU109": "YAML feature refused: alias, complex key, second document or deep nesting",
    "FLU110": "file cannot be read",
    "FLU111": "SKILL.md starts with a UTF-8 byte-order mark, which most other readers refuse",
    # 2xx: frontmatter fields
    "FLU201": "required field missing",
    "FLU202": "field has the wrong type",
    # (the limits are the schema's: it is the one source of the field rules)
    "FLU203": f"`name` is too long ({_NAME['maxLength']} characters at most)",
    "FLU204": f"`name` breaks the naming rule `{_NAME_PATTERN}`",
    "FLU205": "`name` differs from the skill's directory name",
    "FLU206": "`description` is empty",
    "FLU207": f"`description` is too long ({_DESCRIPTION['maxLength']} characters at most)",
    "FLU208": f"`compatibility` is empty or too long ({_COMPATIBILITY['minLength']}-{_COMPATIBILITY['maxLength']} characters)",
    "FLU209": "`metadata` value is not a string",
    "FLU210": "unknown top-level field",
    "FLU211": "`allowed-tools` looks comma-separated",
    "FLU212": "a skill nested inside another skill's directory",
    "FLU213": "`description` is still the placeholder `flue-skills new` writes",
    "FLU214": "a `metadata` key under the prefix reserved for MCP extensions (`io.modelcontextprotocol/`)",
    "FLU215": "plain value or key that YAML 1.1 readers type otherwise than YAML 1.2 (`yes`, `0777`, `0o17`, a date, `1_000`, `1:30`): other hosts refuse the skill",
    # 3xx: packing a skill directory
    "FLU301": "symbolic link refused",
    "FLU302": "secret refused (by file or folder name, or a `.env` template holding a value)",
    "FLU303": "file holds a private key (PEM, in any container: comments, strings, JSON, HTML, URL-encoding, listings, base64, UTF-16/32)",
    "FLU304": "noise skipped (VCS, tool caches, build output, editor files)",
    "FLU305": "file over 1 MiB packed",
    "FLU306": "file that looks like a secret, or holds a key or token, packed because `[tool.flue] allow` lists it",
    "FLU307": "not a regular file (FIFO, socket, device)",
    "FLU308": "file or folder cannot be read",
    "FLU309": "file or folder name the run time could never serve (control character, backslash, not UTF-8, encoded or look-alike dot or slash, over 255 bytes)",
    "FLU310": "skill holds more files than the limit (10,000 unless `max-skill-files` says otherwise)",
    "FLU311": "skill files add up to more than the limit (100 MiB per build unless `max-bundle-size` says otherwise)",
    "FLU312": "two files whose paths differ only in case",
    "FLU313": "folder nested more than 64 levels deep inside a skill",
    "FLU314": "hard-linked file packed (another name shares its bytes)",
    "FLU315": "file holds a credential token (AWS key pair, GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic, Google, Hugging Face, PyPI, npm)",
    "FLU316": "a skill's trigger eval set (`evals/triggers.json`) is not valid: not JSON, or not a list of queries",
    "FLU317": "text file holds Unicode tag characters: invisible text every model reads (emoji flags aside)",
    "FLU318": "text file holds bidirectional controls or zero-width characters (a joiner between emoji aside)",
    # 4xx: references in Python source and what a build does with them
    "FLU401": "dynamic reference: the spec must be one string literal",
    "FLU402": "Python file does not parse",
    "FLU403": "malformed spec: `skill()` must end in `/SKILL.md`, `markdown()` in `.md`",
    "FLU404": "referenced skill folder or markdown file missing",
    "FLU405": "package spec not importable at build time; resolved at run time",
    "FLU406": "reference leaves the project folder",
    "FLU407": "referencing module is not inside a regular package",
    "FLU408": "skill folder overlaps Python code (holds `__init__.py` or the referencing module)",
    "FLU409": "built artifact holds a file that was not vetted",
    "FLU410": "skill folder in what the build selects is not referenced: only its vetted files ship, as plain files",
    "FLU411": "vetted skill file left out of an artifact: the project's own exclusion rules exclude it",
    "FLU412": "a referenced skill's `SKILL.md` or a `markdown()` target is excluded by the project's own rules",
    "FLU413": "package spec names a skill or file its distribution does not export (`[tool.flue] exports`)",
    "FLU414": "`[tool.flue] exports` names a spec outside the project's packages",
    "FLU415": "spec without `./` names no importable package but a file next to the module: a relative spec needs `./`",
    # 5xx: the project's build configuration
    "FLU501": "the project needs flue-skills at build time but its build does not run it (hook table, `[tool.flue]` or build requirement missing)",
    "FLU502": "the project's code calls `skill()`/`markdown()` but its runtime dependencies lack `flue-skills`",
    "FLU503": "the build backend rejects the project's configuration",
}
