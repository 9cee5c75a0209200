"""Tests a contributor can find (issue 35 item 9): every product module is named by a test module (`vfs.py` by
`test_vfs.py`, `http_guard.py` by `test_mcp_http_guard.py`), or listed here with the umbrella tests that exercise it."""

from __future__ import annotations

from pathlib import Path

from support.paths import ROOT

PACKAGES = ("flue_runtime", "flue_build", "hatch_plugin/hatch_flue_skills")

#: Modules no test module is named for, and the tests that exercise them.
UMBRELLA = {
    "flue_runtime.agents.configuration": ["tests/harness/test_catalog.py"],
    "flue_runtime.agents.disk_write": ["tests/harness/test_files.py"],
    "flue_runtime.agents.first_turn": ["tests/cli/test_prompt_command.py", "tests/integrations/test_evaluation.py"],
    "flue_runtime.agents.hooks": ["tests/harness/test_tools.py", "tests/harness/test_alias.py"],
    "flue_runtime.agents.json_schema": ["tests/fuzz/test_fuzz_validator.py", "tests/harness/test_tool_types.py"],
    "flue_runtime.agents.reading": ["tests/harness/test_bounded_reads.py"],
    "flue_runtime.agents.sandbox": ["tests/harness/test_files.py", "tests/fuzz/test_fuzz_paths.py"],
    "flue_runtime.agents.sandbox_tools": ["tests/harness/test_bounded_reads.py", "tests/harness/test_special_files.py"],
    "flue_runtime.agents.skill_tools": ["tests/harness/test_catalog.py", "tests/harness/test_tool_errors_advice.py"],
    "flue_runtime.agents.stores.encoding": ["tests/stores/test_store_contract.py"],
    "flue_runtime.agents.stores.migrations": ["tests/stores/test_sqlite_store.py", "tests/stores/test_provenance.py"],
    "flue_runtime.agents.supervisor": ["tests/harness/test_script_processes.py"],
    "flue_runtime.agents.tool_schema": ["tests/harness/test_tool_types.py"],
    "flue_runtime.format.codes": ["tests/test_diagnostics_page.py"],
    "flue_runtime.format.manifest": ["tests/test_packing.py", "tests/integrations/test_installed_input.py"],
    "flue_runtime.format.markdown_file": ["tests/hostile/test_security_claims.py"],
    "flue_runtime.format.naming": ["tests/test_schema_rules.py"],
    "flue_runtime.format.nearest": ["tests/test_rules.py", "tests/build/test_build_config.py"],
    "flue_runtime.format.records": ["tests/test_packing.py"],
    "flue_runtime.format.schema_validator": ["tests/fuzz/test_fuzz_validator.py", "tests/test_schema_rules.py"],
    "flue_runtime.format.skill_folder": ["tests/hostile/test_limits.py", "tests/test_vet_cache.py"],
    "flue_runtime.format.specs": [
        "tests/fuzz/test_fuzz_scan.py",
        "tests/build/test_build_config.py",
        "tests/runtime/test_resolve.py",
    ],
    "flue_runtime.format.trees": ["tests/test_steps.py"],
    "flue_runtime.format.text_files": ["tests/harness/test_bounded_reads.py", "tests/test_hidden_text.py"],
    "flue_runtime.format.yaml_types": ["tests/test_rules.py", "tests/integrations/test_mcp_conformance.py"],
    "flue_runtime.format.validate": ["tests/test_rules.py"],
    "flue_runtime.format.vetting": ["tests/test_steps.py", "tests/test_packing.py"],
    "flue_runtime.integrations.langchain": ["tests/integrations/test_adapters.py"],
    "flue_runtime.integrations.openai_agents": ["tests/integrations/test_adapters.py"],
    "flue_runtime.integrations.pydantic_ai": ["tests/integrations/test_adapters.py"],
    "flue_runtime.mcp.contents": ["tests/integrations/test_mcp_caching.py"],
    "flue_runtime.mcp.remote_source": ["tests/integrations/test_remote_host.py"],
    "flue_runtime.models.base": ["tests/harness/test_turns.py"],
    "flue_runtime.models.providers": ["tests/providers/test_lazy.py"],
    "flue_runtime.models.scripted": ["tests/harness/test_turns.py"],
    "flue_runtime.models.sdk": ["tests/providers/test_anthropic.py", "tests/providers/test_openai.py"],
    "flue_runtime.mount.disk": ["tests/runtime/test_dev_mode.py", "tests/runtime/test_sources.py"],
    "flue_runtime.mount.origin_record": ["tests/integrations/test_remote_host.py"],
    "flue_runtime.validation": ["tests/test_public_face.py"],
    "flue_build.backends.boundary": ["tests/build/test_build_error.py"],
    "flue_build.backends.hatchling.selection": ["tests/build/test_build_wheels.py", "tests/build/test_reach_ins.py"],
    "flue_build.backends.setuptools.plugin": ["tests/build/test_build_wheels.py", "tests/build/test_reach_ins.py"],
    "flue_build.backends.setuptools.selection": [
        "tests/build/test_build_wheels.py",
        "tests/build/test_static_project.py",
    ],
    "flue_build.backends.view": ["tests/build/test_static_project.py", "tests/cli/test_check_without_backend.py"],
    "flue_build.cli.agent_args": ["tests/cli/test_skill_flags.py", "tests/cli/test_prompt_command.py"],
    "flue_build.cli.counts": ["tests/cli/test_exit_status.py"],
    "flue_build.cli.exits": ["tests/cli/test_exit_status.py", "tests/cli/test_run_command.py"],
    "flue_build.cli.targets": ["tests/integrations/test_cli_integrations.py", "tests/cli/test_startup.py"],
    "flue_build.cli.watch": ["tests/cli/test_run_command.py"],
    "flue_build.fswalk": ["tests/hostile/test_limits.py"],
    "flue_build.hatchling_build": ["tests/test_backend_internals.py"],
    "flue_build.inventory": ["tests/build/test_audit_record.py"],
    "flue_build.pack": ["tests/build/test_build_wheels.py"],
    "flue_build.report": ["tests/build/test_build_output.py"],
    "flue_build.scan.found": ["tests/test_cli.py"],
    "flue_build.scan.prefilter": ["tests/build/test_build_scan.py"],
    "flue_build.scan.scanner": ["tests/build/test_build_scan.py", "tests/fuzz/test_fuzz_scan.py"],
    "flue_build.scan.selection": ["tests/build/test_build_config.py"],
    "flue_build.setuptools_plugin": ["tests/test_backend_internals.py"],
    "hatch_flue_skills.hooks": ["tests/build/test_build_wheels.py"],
    "hatch_flue_skills.plugin": ["tests/build/test_build_wheels.py"],
}


def product_modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name not in ("__init__.py", "__main__.py"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                found[".".join(parts[1:] if parts[0] == "hatch_plugin" else parts)] = path
    return found


def named_by_a_test(path: Path, tests: list[Path]) -> bool:
    """A test module's name holds the module's, word for word (`test_mcp_http_guard` names `http_guard`)."""
    words = path.stem.split("_")
    return any(
        test.stem.split("_")[1 + i : 1 + i + len(words)] == words
        for test in tests
        for i in range(len(test.stem.split("_")) - 1)
    )


def test_every_module_has_a_test_module_named_for_it_or_listed_umbrella_tests() -> None:
    tests = sorted((ROOT / "tests").rglob("test_*.py"))
    modules = product_modules()
    unnamed = {name for name, path in modules.items() if not named_by_a_test(path, tests)}
    assert not unnamed - set(UMBRELLA), (
        f"add a test module named for these, or list their tests in UMBRELLA: {sorted(unnamed - set(UMBRELLA))}"
    )
    assert not set(UMBRELLA) - unnamed, (
        f"named by a test module or gone, drop from UMBRELLA: {sorted(set(UMBRELLA) - unnamed)}"
    )
    missing = [test for listed in UMBRELLA.values() for test in listed if not (ROOT / test).is_file()]
    assert not missing, missing


def test_the_naming_rule_matches_whole_words() -> None:
    tests = [Path("tests/integrations/test_mcp_http_guard.py"), Path("tests/test_calls.py")]
    assert named_by_a_test(Path("flue_runtime/mcp/http_guard.py"), tests)
    assert not named_by_a_test(Path("flue_build/cli/commands/ls.py"), tests)  # not "calls"
    assert not named_by_a_test(Path("flue_runtime/mcp/http_sessions.py"), tests)
