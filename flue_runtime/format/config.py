"""`[tool.flue]` in pyproject.toml: the one parser, for the build and for the run time.

Strict (both build backends, `flue-skills check`): every problem is collected and
reported together in one `ConfigError`, each prefixed with its TOML key
(`tool.flue.allow[1]: must be a string`), so one failed build shows all of them.
Lenient (dev mode): what can be read is taken, a bad value keeps its default, and a
pyproject.toml that cannot be read means the defaults; the build is where such a project
learns what is wrong.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from flue_runtime.errors import ConfigError
from flue_runtime.format.exports import EXAMPLE, export_problem
from flue_runtime.format.vetting import DEFAULT_LIMITS, SIZE_UNITS, Limits, format_size, parse_size

__all__ = [
    "FlueConfig",
    "INSTALLED",
    "KEYS",
    "LIMIT_KEYS",
    "PYPROJECT",
    "flue_table",
    "load_config",
    "parse_config",
    "project_config",
    "read_pyproject",
]


PYPROJECT = "pyproject.toml"
#: The limits a project may override, each with its `Limits` field and whether it is a size in bytes.
LIMIT_KEYS = {
    "max-frontmatter-size": ("frontmatter_size", True),
    "max-skill-files": ("skill_files", False),
    "max-bundle-size": ("bundle_size", True),
}
KEYS = ("allow", "strict", "packages", "exports", *LIMIT_KEYS)
#: Folders that hold installed distributions: a package below one belongs to no project.
INSTALLED = frozenset({"site-packages", "dist-packages"})


@dataclass(frozen=True)
class FlueConfig:
    """What `[tool.flue]` says, with paths made absolute against the project root.

    `packages` is None when the table does not name them: scan what the backend builds.
    `exports` is None when the project declares none (any spec into its packages resolves
    from other packages); otherwise the package specs other packages may use, as written.
    `in_project` is False when no pyproject.toml was found (`project_config`): the defaults.
    """

    root: Path
    allow: tuple[Path, ...] = ()
    strict: bool = False
    packages: tuple[Path, ...] | None = None
    limits: Limits = DEFAULT_LIMITS
    exports: tuple[str, ...] | None = None
    in_project: bool = True

    @property
    def allow_list(self) -> tuple[Path, ...] | None:
        """`allow` for the packing rules; None outside any project, where no `[tool.flue] allow` exists to point to."""
        return self.allow if self.in_project else None


def read_pyproject(root: Path) -> dict[str, Any]:
    """The parsed pyproject.toml of `root`; `ConfigError` when it is missing or not TOML."""
    path = root / PYPROJECT
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(path, ["no pyproject.toml here: a project folder holds one"]) from None
    except OSError as exc:
        raise ConfigError(path, [f"cannot read: {exc.strerror or exc}"]) from None
    except tomllib.TOMLDecodeError as exc:
        message, line, column = _toml_position(str(exc))
        raise ConfigError(
            path, [f"not valid TOML: {message}"], headline="not valid TOML", line=line, column=column
        ) from None


def _toml_position(message: str) -> tuple[str, int | None, int | None]:
    """tomllib's message without its `(at line L, column C)` tail, and that place (Python 3.11 has no attributes for it)."""
    found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if found is None:
        return message, None, None
    return message[: found.start()], int(found.group(1)), int(found.group(2))


def flue_table(pyproject: dict[str, Any]) -> Any:
    """The raw `[tool.flue]` value, or None when the project has none."""
    tool = pyproject.get("tool")
    return tool.get("flue") if isinstance(tool, dict) else None


def load_config(root: Path, pyproject: dict[str, Any] | None = None) -> FlueConfig:
    """Strict: `[tool.flue]` of the project at `root` (an absent table gives the defaults)."""
    root = Path(os.path.abspath(root))
    data = read_pyproject(root) if pyproject is None else pyproject
    return parse_config(root, flue_table(data))


def project_config(start: Path) -> FlueConfig:
    """Lenient: `[tool.flue]` of the nearest pyproject.toml at or above `start` (defaults when none).

    The search stops at a `site-packages` folder: an installed package belongs to no project,
    not even to one that happens to hold the virtual environment. Dev mode asks at every
    render, so the answer is kept while the same pyproject.toml is the nearest and its `stat`
    is the same (one changed in the last `_SETTLE_NS` is read again: see `format.vet_cache`).
    """
    begin = os.path.abspath(start)
    found = _nearest_pyproject(begin)
    kept = _KEPT.get(begin)
    if kept is not None and kept[0] == found:
        return kept[1]
    config = _project_config(Path(begin), found)
    if found is None or found[1][3] < time.time_ns() - _SETTLE_NS:
        if len(_KEPT) >= _KEPT_SIZE:
            _KEPT.clear()
        _KEPT[begin] = (found, config)
    return config


#: The nearest pyproject.toml's folder and its (inode, size, mtime, ctime); None when there is none.
_Found = tuple[str, tuple[int, int, int, int]] | None
#: `project_config` per start folder, with the pyproject.toml it was read from.
_KEPT: dict[str, tuple[_Found, FlueConfig]] = {}
_KEPT_SIZE = 4096
_SETTLE_NS = 2_000_000_000


def _nearest_pyproject(start: str) -> _Found:
    for folder, path in _candidates(start):
        try:
            info = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            return folder, (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return None


@functools.lru_cache(maxsize=_KEPT_SIZE)
def _candidates(start: str) -> tuple[tuple[str, str], ...]:
    """The folders searched for a pyproject.toml from `start` up (to a `site-packages`), with its path in each."""
    found = []
    folder = start
    while os.path.basename(folder) not in INSTALLED:
        found.append((folder, os.path.join(folder, PYPROJECT)))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return tuple(found)


def _project_config(start: Path, found: _Found) -> FlueConfig:
    if found is None:
        return FlueConfig(start, in_project=False)
    folder = Path(found[0])
    try:
        table = flue_table(read_pyproject(folder))
    except ConfigError:
        return FlueConfig(folder)
    return parse_config(folder, table, strict=False)


def parse_config(root: Path, table: Any, *, strict: bool = True) -> FlueConfig:
    """A raw `[tool.flue]` value checked; strict raises `ConfigError` listing every problem, lenient drops bad values."""
    problems: list[str] = []
    config = _parse(root, table, problems)
    if problems and strict:
        raise ConfigError(root / PYPROJECT, problems)
    return config


def _parse(root: Path, table: Any, problems: list[str]) -> FlueConfig:
    if table is None:
        return FlueConfig(root)
    if not isinstance(table, dict):
        problems.append("tool.flue: must be a table, like `[tool.flue]`")
        return FlueConfig(root)
    for key in sorted(set(table) - set(KEYS)):
        import difflib

        close = difflib.get_close_matches(key, KEYS, n=1)
        hint = f"; did you mean `{close[0]}`?" if close else f"; known keys: {', '.join(KEYS)}"
        problems.append(f"tool.flue.{key}: unknown key{hint}")

    strict = table.get("strict", False)
    if not isinstance(strict, bool):
        problems.append(f"tool.flue.strict: must be true or false, not {_kind(strict)}")
        strict = False

    allow = _paths(root, table, "allow", problems)
    packages = None
    if "packages" in table:
        packages = []
        for index, path in enumerate(_paths(root, table, "packages", problems)):
            if path.is_dir() or (path.is_file() and path.suffix == ".py"):
                packages.append(path)
            else:
                where = path.relative_to(root).as_posix()
                problems.append(f"tool.flue.packages[{index}]: {where} is not a package folder or a .py file")
    limits = _limits(table, problems)
    exports = _exports(table["exports"], problems) if "exports" in table else None
    return FlueConfig(root, tuple(allow), strict, None if packages is None else tuple(packages), limits, exports)


def _exports(value: Any, problems: list[str]) -> tuple[str, ...]:
    """The package specs a project exports, each checked by the scanner's spec rules; problems under `tool.flue.exports`."""
    if not isinstance(value, list):
        problems.append(f'tool.flue.exports: must be a list of package specs, like ["{EXAMPLE}"], not {_kind(value)}')
        return ()
    out: dict[str, None] = {}
    for index, item in enumerate(value):
        where = f"tool.flue.exports[{index}]"
        if not isinstance(item, str):
            problems.append(f"{where}: must be a string, a package spec like {EXAMPLE!r}, not {_kind(item)}")
            continue
        problem = export_problem(item)
        if problem:
            problems.append(f"{where}: malformed spec {item!r}: {problem}; for example {EXAMPLE!r}")
        elif item in out:
            problems.append(f"{where}: {item!r} is listed twice")
        else:
            out[item] = None
    return tuple(out)


def _limits(table: dict[str, Any], problems: list[str]) -> Limits:
    """The limits `[tool.flue]` sets (defaults for the rest); a bad value is a problem, and keeps its default."""
    values: dict[str, int] = {}
    for key, (name, is_size) in LIMIT_KEYS.items():
        if key not in table:
            continue
        raw = table[key]
        value = parse_size(raw) if is_size else (raw if isinstance(raw, int) and not isinstance(raw, bool) else None)
        if value is None or value < 1:
            default = getattr(DEFAULT_LIMITS, name)
            example = f'"{format_size(default * 2)}" or {default * 2}' if is_size else str(default * 2)
            what = f"a size: a number of bytes or a string with a unit ({SIZE_UNITS})" if is_size else "a whole number"
            problems.append(f"tool.flue.{key}: must be {what}, at least 1, like {example}; not {raw!r}")
            continue
        values[name] = value
    return Limits(**values)


def _paths(root: Path, table: dict[str, Any], key: str, problems: list[str]) -> list[Path]:
    """A list of project-relative POSIX paths, made absolute; problems noted under `tool.flue.<key>`."""
    value = table.get(key, [])
    if not isinstance(value, list):
        problems.append(
            f'tool.flue.{key}: must be a list of paths relative to the project, like ["skills/x/.env.example"]'
        )
        return []
    out: list[Path] = []
    for index, item in enumerate(value):
        where = f"tool.flue.{key}[{index}]"
        if not isinstance(item, str):
            problems.append(f"{where}: must be a string, not {_kind(item)}")
            continue
        if not item.strip():
            problems.append(f"{where}: must not be empty")
            continue
        pure = PurePosixPath(item)
        if pure.is_absolute() or "\\" in item or (len(item) > 1 and item[1] == ":"):
            problems.append(f"{where}: `{item}` must be relative to the project folder, with `/` separators")
            continue
        if ".." in pure.parts:
            problems.append(f"{where}: `{item}` must stay inside the project folder (no `..`)")
            continue
        out.append(root.joinpath(*pure.parts))
    return out


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__
