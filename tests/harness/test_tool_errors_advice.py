"""Issue 31 item 5: every error a model gets from the skill tools says what to do instead, and doing it works.

Each case provokes one error through the harness, as a model calls the tools (and, where the host
keeps no conversation, through `Skillset`, which every integration calls). `advice` then reads what
to do out of the error text alone (the paths, names, offsets, columns or arguments it names) and the
model calls again following it: every such call must succeed. The test never knows the answer; it
only parses the text, so an error that gives no usable advice, or advice that fails, fails here.

A path relative to a skill's folder (what a skill's own instructions write) is read when it names
one file: among the skills activated in the conversation, and only there (issue 40 item 2: never another
skill's file in their place); before any activation, and where the host keeps no conversation, among all
mounted skills.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from harness_support import tool_results

from flue_runtime import Harness, LocalSandbox, MemorySandbox, agent, define_skill, use_model, use_skill
from flue_runtime.agents.catalog import CATALOG_BUDGET
from flue_runtime.agents.sandbox import Sandbox
from flue_runtime.integrations.skillset import Skillset
from flue_runtime.models import ModelRequest, ModelResponse, ScriptedModel, ToolCall
from flue_runtime.mount.reference import SkillReference

VAT = define_skill(
    name="vat",
    description="VAT rules. Use for questions about VAT.",
    instructions="Read references/vat-rules.md first.\n",
    files={
        "references/vat-rules.md": "VAT is 20%.\n",
        "references/rates.csv": "rate\n20\n",
        "scripts/rate.py": "print('20%')\n",
    },
)
TAX = define_skill(
    name="tax",
    description="Tax rules. Use for tax returns.",
    instructions="Read references/vat-rules.md and guide.md.\n",
    files={"references/vat-rules.md": "The tax skill's VAT notes.\n", "guide.md": "A guide.\n"},
)
REFUNDS = define_skill(
    name="refunds",
    description="Refunds. Use when a customer wants money back.",
    instructions="Read policy.md.\n",
    files={"policy.md": "Refund within 30 days.\nThen close the case.\n", "forms/claim.pdf": b"%PDF-1.4\x00\xff"},
)
SKILLS = (VAT, TAX, REFUNDS)

# --- reading the advice out of an error text ------------------------------------------------

#: A path to use: bare (what the model sent is quoted, `'...'`, and not advice).
_VIRTUAL = re.compile(r"(?<!['\"\w./])/\.flue/skills/[^\s,;:?'\"()\[\]]+")
_NAMES = re.compile(r"(?:[Aa]vailable skills|Similar names): ([\w, -]+)")
_FOLLOW_LIMIT = 3  # of a list of paths or names, the first few are each followed


def advice(call: ToolCall, text: str) -> list[ToolCall]:
    """The calls `text` tells the model to make instead of `call`, parsed from the text alone."""
    arguments = dict(call.arguments)
    if found := re.search(r"argument '(\w+)' must be at least (\d+)", text):
        return [ToolCall(call.name, {**arguments, found[1]: int(found[2])})]
    missing = re.findall(r"missing required argument '(\w+)'", text)
    unknown = re.findall(r"unknown argument '(\w+)'", text)
    if missing and len(missing) == len(unknown):  # a misspelt argument: sent under the name asked for
        renamed = {k: v for k, v in arguments.items() if k not in unknown}
        return [ToolCall(call.name, renamed | {m: arguments[u] for m, u in zip(missing, unknown)})]
    for what in ("offset", "column"):
        if found := re.search(rf"use an? {what} from (\d+) to (\d+)", text):
            return [ToolCall(call.name, {**arguments, what: int(value)}) for value in dict.fromkeys(found.groups())]
    if "leave column out" in text:
        return [ToolCall(call.name, {k: v for k, v in arguments.items() if k != "column"})]
    if call.name == "run_skill_script":
        if found := re.search(r"skills with scripts: ([\w, -]+)", text):
            return [ToolCall(call.name, {**arguments, "skill": name}) for name in _listed(found[1])]
        if found := re.search(r"its scripts: ([^;\n]+)", text) or re.search(r"like '(scripts/[^']+)'", text):
            return [ToolCall(call.name, {**arguments, "script": script}) for script in _listed(found[1])]
    paths = list(dict.fromkeys(path.rstrip(".") for path in _VIRTUAL.findall(text)))
    if paths:
        return [ToolCall(call.name, {"path": path}) for path in paths[:_FOLLOW_LIMIT]]
    if found := _NAMES.search(text):
        return [ToolCall("activate_skill", {"name": name}) for name in _listed(found[1])]
    if "call find_skills" in text:
        return [ToolCall("find_skills", {"query": str(call.arguments.get("name", ""))})]
    if call.name == "find_skills" and (found := re.search(r"like '([^']+)'", text)):
        return [ToolCall("find_skills", {"query": found[1]})]
    return []


def _listed(text: str) -> list[str]:
    """The items of a list a message gives ('a, b and 3 more'), the first few."""
    items = [item.strip() for item in re.split(r",| and \d[\d,]* more", text.strip().rstrip("."))]
    return [item for item in items if item and " " not in item][:_FOLLOW_LIMIT]


def succeeded(call: ToolCall, content: str, is_error: bool) -> bool:
    """A call did what was asked: no error, and an activation gave instructions (an unknown name is no error)."""
    return not is_error and (call.name != "activate_skill" or content.startswith("<skill name="))


# --- running a case -----------------------------------------------------------------------


def through_harness(
    provoke: ToolCall,
    *,
    before: Sequence[ToolCall] = (),
    skills: Sequence[SkillReference] = SKILLS,
    sandbox: Sandbox | None = None,
    budget: int | None = CATALOG_BUDGET,
) -> tuple[dict[str, Any], list[tuple[ToolCall, dict[str, Any]]]]:
    """The error `provoke` gets in a session (after `before`), and each call its advice led to, with its result."""
    followed: list[ToolCall] = []

    def follow(request: ModelRequest) -> ModelResponse:
        [error] = tool_results_of(request)
        followed.extend(advice(provoke, error["content"]))
        assert followed, f"no advice found in {error['content']!r}"
        return ModelResponse(tool_calls=tuple(followed))

    turns: list[Any] = [list(before)] if before else []
    model = ScriptedModel([*turns, [provoke], follow, "done"])

    @agent
    def a() -> str:
        use_model(model)
        for skill in skills:
            use_skill(skill)
        return "Help."

    Harness(a, sandbox=sandbox, catalog_budget=budget).session("advice").prompt_sync("go")
    [error] = tool_results(model, -2)
    return error, list(zip(followed, tool_results(model)))


def tool_results_of(request: ModelRequest) -> list[dict[str, Any]]:
    results = []
    for message in reversed(request.messages):
        if message["role"] != "tool":
            break
        results.append(message)
    return list(reversed(results))


def assert_advice_works(error: dict[str, Any], followed: list[tuple[ToolCall, dict[str, Any]]]) -> None:
    content = error["content"]
    assert error["is_error"] or content.startswith("There is no skill named"), content
    failed = [(c, r["content"]) for c, r in followed if not succeeded(c, r["content"], r["is_error"])]
    assert failed == [], f"following {content!r} failed"


# --- the cases ------------------------------------------------------------------------------

POLICY = "/.flue/skills/refunds/policy.md"
CLAIM = "/.flue/skills/refunds/forms/claim.pdf"

#: Paths under /.flue/skills that fail, in both tools that read them.
TREE_ERRORS: dict[str, dict[str, Any]] = {
    "another skill's name": {"path": "/.flue/skills/refund/policy.md"},
    "a skill that is not mounted": {"path": "/.flue/skills/ghost/notes.md"},
    "a misspelt file": {"path": "/.flue/skills/refunds/polcy.md"},
    "a file the skill lacks": {"path": "/.flue/skills/refunds/zzzz"},
    "the tree's root": {"path": "/.flue/skills"},
    "dot-dot": {"path": "/.flue/skills/refunds/../tax/guide.md"},
    "percent-encoded dot-dot": {"path": "/.flue/skills/refunds/%2e%2e/x"},
    "a path too long": {"path": "/.flue/skills/" + "z" * 5000},
    "an offset past the end of a text": {"path": POLICY, "offset": 99},
    "an offset past the end of a binary file": {"path": CLAIM, "offset": 99},
    "a column past the end of a line": {"path": POLICY, "offset": 1, "column": 500},
    "a column in a binary file": {"path": CLAIM, "column": 2},
    "a negative offset": {"path": POLICY, "offset": -1},
}

#: Folders of a skill: the sandbox `read` fails on them; `read_skill_resource` lists their files
#: (tests/harness/test_bounded_reads.py).
FOLDER_ERRORS: dict[str, dict[str, Any]] = {
    "a folder of the skill": {"path": "/.flue/skills/refunds/forms"},
    "the skill's folder": {"path": "/.flue/skills/refunds"},
}

#: Paths not under /.flue/skills that `read_skill_resource` cannot read: (arguments, skills activated before).
RELATIVE_ERRORS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "two skills have it, none activated": ({"path": "references/vat-rules.md"}, ()),
    "two activated skills have it": ({"path": "references/vat-rules.md"}, ("vat", "tax")),
    "a misspelt relative path": ({"path": "references/vat-rule.md"}, ("vat",)),
    "no skill has it, one activated": ({"path": "notes/zzzz.txt"}, ("vat",)),
    "only a skill not activated has it": ({"path": "guide.md"}, ("vat",)),
    "no skill has it, none activated": ({"path": "notes/zzzz.txt"}, ()),
    "dot-dot, relative": ({"path": "../vat/references/rates.csv"}, ()),
    "absolute outside the tree": ({"path": "/etc/passwd"}, ()),
    "a relative path too long": ({"path": "z" * 5000}, ()),
}


@pytest.mark.parametrize(
    ("tool", "case"),
    [(tool, case) for case in TREE_ERRORS for tool in ("read_skill_resource", "read")]
    + [("read", case) for case in FOLDER_ERRORS],
)
def test_every_tree_error_advice_works(tool: str, case: str) -> None:
    error, followed = through_harness(ToolCall(tool, {**TREE_ERRORS, **FOLDER_ERRORS}[case]), sandbox=MemorySandbox())
    assert_advice_works(error, followed)


@pytest.mark.parametrize("case", RELATIVE_ERRORS)
def test_every_relative_path_error_advice_works(case: str) -> None:
    arguments, activated = RELATIVE_ERRORS[case]
    before = [ToolCall("activate_skill", {"name": name}) for name in activated]
    error, followed = through_harness(ToolCall("read_skill_resource", arguments), before=before)
    assert_advice_works(error, followed)


@pytest.mark.parametrize(
    "case", [c for c in [*TREE_ERRORS, *RELATIVE_ERRORS] if c in TREE_ERRORS or not RELATIVE_ERRORS[c][1]]
)
def test_every_error_advice_works_where_the_host_keeps_no_conversation(case: str) -> None:
    """The integrations' one implementation (`Skillset`, which MCP, pydantic-ai, the Agents SDK and LangChain call)."""
    arguments = TREE_ERRORS[case] if case in TREE_ERRORS else RELATIVE_ERRORS[case][0]
    skillset = Skillset(SKILLS)
    provoke = ToolCall("read_skill_resource", arguments)
    error = skillset.call(provoke.name, provoke.arguments)
    assert error.is_error, error.text
    calls = advice(provoke, error.text)
    assert calls, f"no advice found in {error.text!r}"
    for call in calls:
        result = skillset.call(call.name, call.arguments)
        assert succeeded(call, result.text, result.is_error), (error.text, call, result.text)


def test_a_sandbox_path_naming_a_skill_file_says_where_the_file_is() -> None:
    error, followed = through_harness(ToolCall("read", {"path": "references/rates.csv"}), sandbox=MemorySandbox())
    assert_advice_works(error, followed)
    assert [call.arguments["path"] for call, _ in followed] == ["/.flue/skills/vat/references/rates.csv"]


@pytest.mark.parametrize(
    "arguments",
    [{"name": "refund"}, {"nam": "refunds"}],
    ids=["an unknown name", "a misspelt argument"],
)
def test_every_activation_error_advice_works(arguments: dict[str, Any]) -> None:
    error, followed = through_harness(ToolCall("activate_skill", arguments))
    assert_advice_works(error, followed)


@pytest.mark.parametrize("name", ["zebra", "skill-07x"], ids=["nothing similar", "a similar name"])
def test_an_unknown_name_among_many_skills_advice_works(name: str) -> None:
    many = [define_skill(name=f"skill-{i:02d}", description=f"Skill {i}.", instructions="Do it.") for i in range(60)]
    error, followed = through_harness(ToolCall("activate_skill", {"name": name}), skills=many, budget=500)
    assert_advice_works(error, followed)


@pytest.mark.parametrize("query", ["", "!!!"])
def test_a_query_without_words_advice_works(query: str) -> None:
    many = [define_skill(name=f"skill-{i:02d}", description=f"Skill {i}.", instructions="Do it.") for i in range(60)]
    error, followed = through_harness(ToolCall("find_skills", {"query": query}), skills=many, budget=500)
    assert_advice_works(error, followed)


SCRIPT_ERRORS = {
    "an unknown skill": {"skill": "vatt", "script": "scripts/rate.py"},
    "a skill without scripts": {"skill": "refunds", "script": "scripts/rate.py"},
    "an unknown script": {"skill": "vat", "script": "scripts/rates.py"},
    "a refused script path": {"skill": "vat", "script": "../rate.py"},
}


@pytest.mark.parametrize("case", SCRIPT_ERRORS)
def test_every_script_argument_error_advice_works(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "work").mkdir()
    sandbox = LocalSandbox(tmp_path / "work", allow_exec=True)
    error, followed = through_harness(ToolCall("run_skill_script", SCRIPT_ERRORS[case]), sandbox=sandbox)
    assert_advice_works(error, followed)
    assert [result["content"] for _, result in followed] == [
        "exit status: 0\n--- stdout ---\n20%\n--- stderr: empty ---"
    ]


# --- paths relative to a skill's folder -----------------------------------------------------


def read_after(activated: Sequence[str], path: str) -> dict[str, Any]:
    """The result of `read_skill_resource(path)` once the model activated `activated`."""
    activations: list[Any] = [[ToolCall("activate_skill", {"name": name}) for name in activated]] if activated else []
    model = ScriptedModel([*activations, [ToolCall("read_skill_resource", {"path": path})], "done"])

    @agent
    def a() -> str:
        use_model(model)
        for skill in SKILLS:
            use_skill(skill)
        return "Help."

    Harness(a).session("relative").prompt_sync("go")
    [result] = tool_results(model)
    return result


def test_a_path_relative_to_the_activated_skill_is_read() -> None:
    result = read_after(["vat"], "references/rates.csv")
    assert result == {**result, "is_error": False, "content": "     1\trate\n     2\t20"}


def test_the_activated_skill_wins_over_another_skill_with_the_same_path() -> None:
    """The model was shown the activated skill's paths; the other skill's file of the same name is not what it means."""
    assert read_after(["vat"], "references/vat-rules.md")["content"] == "     1\tVAT is 20%."
    assert read_after(["tax"], "./references/vat-rules.md")["content"] == "     1\tThe tax skill's VAT notes."


def test_a_path_one_mounted_skill_has_is_read_without_activation_everywhere() -> None:
    assert read_after([], "guide.md")["content"] == "     1\tA guide."
    assert read_after([], "refunds/policy.md")["content"].startswith("     1\tRefund within 30 days.")
    assert Skillset(SKILLS).call("read_skill_resource", {"path": "forms/claim.pdf"}).text == (
        "[binary file /.flue/skills/refunds/forms/claim.pdf, 10 bytes; base64 of bytes 0-10]\nJVBERi0xLjQA/w=="
    )


def test_an_ambiguous_relative_path_lists_the_full_paths() -> None:
    result = read_after([], "references/vat-rules.md")
    assert result["is_error"]
    assert "/.flue/skills/vat/references/vat-rules.md" in result["content"]
    assert "/.flue/skills/tax/references/vat-rules.md" in result["content"]


@pytest.mark.parametrize(
    "path",
    [
        "../tax/guide.md",
        "references/../../tax/guide.md",
        "%2e%2e/tax/guide.md",
        "references\\..\\..\\tax\\guide.md",
        "vat/../tax/guide.md",
        "VAT/references/rates.csv",
        "references/rates.csv\x00.md",
        "\uff0e\uff0e/tax/guide.md",
    ],
)
def test_a_relative_path_reaches_nothing_but_a_listed_file(path: str) -> None:
    """Resolved by equality with the mounted skills' listed files only: `tax` is not mounted, so nothing reaches it."""
    result = Skillset([VAT, REFUNDS]).call("read_skill_resource", {"path": path})
    assert result.is_error and result.text.startswith("Error: "), result.text
