"""The error tree (issue 42 item 4): at most 25 public classes in `flue_runtime.errors` and `flue_build.errors`, none
defined elsewhere; each merged class's old name a deprecated alias (until 0.3) that warns and still catches what it
caught; public functions raise flue's errors, not built-in ones."""

from __future__ import annotations

import importlib
import re
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from support.paths import ROOT

from flue_build import errors as build_errors
from flue_runtime import errors

#: Each merged name, the class that carries it now, and (where it is cheap) a call that raised it under its old name.
MERGED: dict[str, tuple[str, Callable[[], object] | None]] = {}


def _merged(old: str, new: str, module: str = "flue_runtime.errors") -> Callable[[Callable[[], object]], None]:
    def register(trigger: Callable[[], object]) -> None:
        MERGED[f"{module}:{old}"] = (new, trigger)

    return register


def _skill() -> object:
    from flue_runtime import define_skill

    return define_skill(name="refunds", description="Refunds.", instructions="Refund.\n")


@_merged("SkillDefinitionError", "SkillError")
def _() -> object:
    from flue_runtime import define_skill

    return define_skill(name="Not A Name", description="d", instructions="x\n")


@_merged("SkillSourceError", "SkillError")
def _() -> object:
    from flue_runtime import load_skill

    return load_skill(_skill())  # type: ignore[arg-type]


@_merged("SpecError", "MountError")
def _() -> object:
    from flue_runtime import skill

    return skill("")


@_merged("UnknownPackageError", "SkillNotFoundError")
def _() -> object:
    from flue_runtime import skill

    return skill("no_such_package_anywhere/review/SKILL.md")


@_merged("ResourceNotFoundError", "SkillNotFoundError")
def _() -> object:
    return _skill().read_text("missing.md")  # type: ignore[attr-defined]


@_merged("HookError", "AgentError")
def _() -> object:
    from flue_runtime import use_state

    return use_state("refunds")


@_merged("ToolDefinitionError", "AgentError")
def _() -> object:
    from flue_runtime.agents.tools import tool_from_function

    return tool_from_function(42)  # type: ignore[arg-type]


@_merged("ToolArgumentError", "ToolFailure")
def _() -> object:
    from flue_runtime.agents.tools import tool_from_function

    def refund(order: int) -> str:
        """Refund an order."""
        return str(order)

    return tool_from_function(refund).check_arguments({"order": "seven"})


@_merged("PageError", "AgentError")
def _() -> object:
    from flue_runtime.agents.reading import _check

    _check("offset", -1, 1)
    return None


@_merged("SessionIdError", "StoreError")
def _() -> object:
    from flue_runtime.agents.stores.contract import check_session_id

    return check_session_id("")


@_merged("NotInstalledError", "UsageError", "flue_build.errors")
def _() -> object:
    from flue_build.cli.commands.ls import list_target

    return list_target("no_such_distribution_anywhere")


@_merged("UnknownTargetError", "UsageError", "flue_build.errors")
def _() -> object:
    from flue_build.cli.commands.ls import list_target

    return list_target("no_such_file_anywhere.whl")


@_merged("ListError", "FlueError", "flue_build.errors")
def _() -> object:
    from flue_build.cli.commands.ls import list_target

    with tempfile.TemporaryDirectory() as folder:
        wheel = Path(folder, "damaged-1.0-py3-none-any.whl")
        wheel.write_bytes(b"not a zip file")
        return list_target(str(wheel))


# The rest, merged without a cheap call to raise them (each raise site's own test raises them by the new name).
for _old, _new in {
    "BundleError": "MountError",
    "ReadOnlyError": "MountError",
    "MissingBuildHookError": "SkillNotFoundError",
    "NotExportedError": "SkillNotFoundError",
    "RemoteReplyTooLargeError": "RemoteSkillsError",
    "SchemaError": "AgentError",
    "LoopError": "AgentError",
    "ScriptExhaustedError": "ModelError",
    "MissingBuildHookWarning": "SkillWarning",
    "WorkspaceSkillWarning": "SkillWarning",
}.items():
    MERGED[f"flue_runtime.errors:{_old}"] = (_new, None)


def _public(module: object) -> list[type]:
    return [getattr(module, name) for name in module.__all__]  # type: ignore[attr-defined]


def test_at_most_25_public_error_classes() -> None:
    public = _public(errors) + _public(build_errors)
    assert all(isinstance(c, type) and issubclass(c, (errors.FlueError, Warning)) for c in public), public
    assert len(public) <= 25, sorted(c.__name__ for c in public)


_CLASS = re.compile(r"^\s*class (\w+)\(([^)]*)\):", re.MULTILINE)
_RAISABLE = re.compile(r"(Error|Exception|Warning|Failure|Interrupt|Exit)\b")


def _exception_classes(path: Path) -> list[str]:
    """The classes a module defines whose bases name an exception or a warning."""
    return [name for name, bases in _CLASS.findall(path.read_text(encoding="utf-8")) if _RAISABLE.search(bases)]


#: Signals inside one module that never leave it: the supervisor's SIGTERM (a child process that imports nothing of
#: flue's), a remote connection's "closed, connect again" and "the server said no" (each turned into a `FlueError` by
#: the module's callers before anything sees it).
INTERNAL = {
    "flue_runtime/agents/supervisor.py": ["_Stop"],
    "flue_runtime/mcp/remote_connection.py": ["Closed", "Refused"],
}


def test_no_exception_class_is_defined_outside_the_errors_modules() -> None:
    homes = {ROOT / "flue_runtime" / "errors.py", ROOT / "flue_build" / "errors.py"}
    found = {}
    for package in ("flue_runtime", "flue_build", "hatch_plugin"):
        for path in sorted((ROOT / package).rglob("*.py")):
            classes = _exception_classes(path)
            if classes and path not in homes:
                found[path.relative_to(ROOT).as_posix()] = classes
    assert found == INTERNAL


@pytest.mark.parametrize("where", sorted(MERGED))
def test_a_merged_name_warns_and_still_catches_what_it_caught(where: str) -> None:
    module_name, old = where.split(":")
    new, trigger = MERGED[where]
    module = importlib.import_module(module_name)
    assert old not in module.__all__
    with pytest.warns(DeprecationWarning, match=rf"{old} is {new}"):
        alias = getattr(module, old)
    assert alias.__name__ == new
    assert alias is getattr(errors, new, None) or alias is getattr(build_errors, new)
    with pytest.warns(DeprecationWarning):
        exec(f"from {module_name} import {old}", {})
    if trigger is not None:
        with pytest.raises(alias), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            trigger()


def test_the_models_module_lends_its_merged_name_too() -> None:
    from flue_runtime import models

    with pytest.warns(DeprecationWarning, match="ScriptExhaustedError is ModelError"):
        assert models.ScriptExhaustedError is errors.ModelError
    with pytest.raises(AttributeError):
        models.NoSuchError  # noqa: B018


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        errors.NoSuchError  # noqa: B018
    with pytest.raises(AttributeError):
        build_errors.NoSuchError  # noqa: B018


def test_flue_runtime_imports_only_the_names_it_exported_until_0_1() -> None:
    """An error added since (the lock file's, publishing's) was never `flue_runtime.X`: no such attribute; a merged
    one that was says where it is now."""
    import flue_runtime

    for name in ("PublishError", "HostedServiceError", "LockFileError"):
        assert not hasattr(flue_runtime, name), name
    with pytest.warns(DeprecationWarning, match=r"flue_runtime\.SpecError moved to flue_runtime\.errors\.MountError"):
        assert flue_runtime.SpecError is errors.MountError


def test_public_functions_raise_flue_errors_not_built_in_ones() -> None:
    from flue_runtime.agents import approval
    from flue_runtime.format.triggers import parse_triggers
    from flue_runtime.publish import publish

    calls: list[Callable[[], object]] = [
        lambda: approval.ask(42),  # type: ignore[arg-type]
        lambda: approval.ask_reads(42),  # type: ignore[arg-type]
        lambda: parse_triggers("[]"),
        lambda: parse_triggers("{"),
        lambda: publish([], to="gemini"),
        lambda: publish([], to="openai", check=True, dry_run=True),
    ]
    for call in calls:
        with pytest.raises(errors.FlueError):
            call()


def _tree(lines: list[str]) -> list[tuple[str, str | None]]:
    """Each class of a drawn tree (`├── Name  what`, four columns a level) and the class above it."""
    found: list[tuple[str, str | None]] = []
    above: list[str] = []
    for line in lines:
        match = re.search(r"\w+", line)
        if match is None:
            continue
        depth = match.start() // 4
        above[depth:] = [match.group()]
        found.append((match.group(), above[depth - 1] if depth else None))
    return found


def _class(name: str) -> type:
    return getattr(errors, name, None) or getattr(build_errors, name)  # type: ignore[no-any-return]


def _drawn(lines: list[str]) -> set[str]:
    """The classes of a drawn tree, each under its direct base (the roots: `FlueError` and the warning)."""
    tree = _tree(lines)
    for name, parent in tree:
        bases = _class(name).__bases__
        assert _class(parent) in bases if parent else bases in ((Exception,), (UserWarning,)), (name, parent)
    return {name for name, _ in tree}


def test_the_trees_drawn_are_the_classes() -> None:
    """The errors page's tree and each errors module's docstring tree: every public class, under its base."""
    from support.site import section

    page = section("reference/errors.md", "## Errors").split("```text\n", 1)[1].split("```", 1)[0]
    public = {c.__name__ for c in _public(errors) + _public(build_errors)}
    assert _drawn(page.splitlines()) == public
    for module in (errors, build_errors):
        doc = (module.__doc__ or "").splitlines()
        drawn = [line[4:] for line in doc if line.startswith("    ")]
        assert _drawn(drawn) == {c.__name__ for c in _public(module)} | {"FlueError"}
