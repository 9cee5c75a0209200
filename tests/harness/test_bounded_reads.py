"""Issue 12 item 7: no tool result exceeds its budget, and a read costs memory bounded by the
page, not the file. A line longer than a page comes in pieces, each naming the offset and
column to read on from; `ls` pages its entries; a FIFO is refused, not waited on."""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from harness_support import tool_results

from flue_runtime import (
    Harness,
    LocalSandbox,
    MemorySandbox,
    SkillWarning,
    agent,
    define_skill,
    use_model,
    use_skill,
)
from flue_runtime.agents.reading import MAX_BYTES, MAX_ENTRIES, utf8_size
from flue_runtime.agents.sandbox_tools import SandboxFiles
from flue_runtime.models import ModelRequest, ModelResponse, ScriptedModel, ToolCall
from flue_runtime.mount.vfs import SkillTree


@functools.cache
def minified() -> str:
    """One line of 5 MB, like a minified JSON file (made when a test needs it, not on every worker's collection)."""
    return json.dumps([{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(120_000)])


CONTINUE = re.compile(r"call (\w+) with offset=(\d+)(?: and column=(\d+))? to read on\]$")


def run(
    turns: list[Any], *, sandbox: object = None, skills: tuple[Any, ...] = (), max_steps: int = 50
) -> ScriptedModel:
    model = ScriptedModel(turns)

    @agent
    def a() -> str:
        use_model(model)
        for s in skills:
            use_skill(s)
        return "x"

    Harness(a, sandbox=sandbox, max_steps=max_steps).session("s").prompt_sync("go")  # type: ignore[arg-type]
    return model


def test_one_long_line_never_makes_a_result_larger_than_its_budget() -> None:
    long_line = minified()
    assert len(long_line) > 5_000_000 and "\n" not in long_line
    with pytest.warns(SkillWarning, match="FLU305"):  # a large file: packed, with a warning
        data = define_skill(name="data", description="Data.", instructions="Use it.", files={"items.json": long_line})
    huge = define_skill(name="huge", description="One long line.", instructions=long_line)
    model = run(
        [
            [
                ToolCall("read", {"path": "items.json", "limit": 1}),
                ToolCall("read_skill_resource", {"path": "/.flue/skills/data/items.json", "limit": 1}),
                ToolCall("read", {"path": "/.flue/skills/data/items.json"}),
                ToolCall("activate_skill", {"name": "huge"}),
            ],
            "ok",
        ],
        sandbox=MemorySandbox({"items.json": long_line}),
        skills=(data, huge),
    )
    results = tool_results(model)
    assert all(r["is_error"] is False for r in results), results
    for result in results:
        assert utf8_size(result["content"]) <= MAX_BYTES
    by_read = results[0]["content"]
    assert by_read.startswith("     1\t" + long_line[:1000])
    assert by_read.endswith("call read with offset=1 and column=" + by_read.rsplit("column=", 1)[1])
    activation = results[3]["content"]
    assert activation.startswith('<skill name="huge">\n' + long_line[:1000])
    hint = activation.split("\n</skill>")[0].splitlines()[-1]
    line, column = re.search(r"SKILL\.md offset=(\d+) and column=(\d+)\]$", hint).groups()  # type: ignore[union-attr]
    shown = activation.splitlines()[1]
    assert shown == long_line[: int(column) - 1]
    assert huge.read_text("SKILL.md").splitlines()[int(line) - 1] == long_line  # the hint names the right line


def follow_hints(request: ModelRequest) -> ModelResponse:
    """A model that reads on wherever the last result says, until it says nothing more."""
    last = request.messages[-1]
    if last["role"] != "tool":
        return ModelResponse(tool_calls=(ToolCall("read", {"path": "wide.json"}),))
    found = CONTINUE.search(last["content"])
    if found is None:
        return ModelResponse(text="done")
    tool, offset, column = found.groups()
    arguments: dict[str, Any] = {"path": "wide.json", "offset": int(offset)}
    if column:
        arguments["column"] = int(column)
    return ModelResponse(tool_calls=(ToolCall(tool, arguments),))


def test_the_pieces_of_a_long_line_join_to_exactly_the_file() -> None:
    long_line = minified()
    text = "head\n" + long_line[:700_000] + "\ntail é\n"
    model = run([follow_hints] * 40, sandbox=MemorySandbox({"wide.json": text}), max_steps=40)
    pieces = []
    for request in model.requests[1:]:
        [result] = tool_results(model, model.requests.index(request))
        content = result["content"]
        assert utf8_size(content) <= MAX_BYTES and result["is_error"] is False
        body = content.rsplit("\n[", 1)[0] if CONTINUE.search(content) else content
        pieces.append(body)
    rows: dict[int, str] = {}
    for body in pieces:
        for row in body.split("\n"):
            number, _, part = row.partition("\t")
            rows[int(number)] = rows.get(int(number), "") + part
    assert rows == {1: "head", 2: long_line[:700_000], 3: "tail é"}
    assert len(pieces) > 14  # one line in many pages


PROBE = textwrap.dedent(
    """
    import json, resource, sys
    from flue_runtime import Harness, LocalSandbox, agent, use_model
    from flue_runtime.models import ScriptedModel, ToolCall

    def peak_kib():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    model = ScriptedModel([[ToolCall("read", {"path": "small.txt"})], "ok", [ToolCall("read", {"path": sys.argv[2]})], "ok"])

    @agent
    def a():
        use_model(model)
        return "x"

    session = Harness(a, sandbox=LocalSandbox(sys.argv[1])).session("s")
    session.prompt_sync("warm up")  # every module imported, one page read
    before = peak_kib()
    session.prompt_sync("read the big one")
    after = peak_kib()
    result = model.requests[-1].messages[-1]
    print(json.dumps({"before": before, "after": after, "content": result["content"], "is_error": result["is_error"]}))
    """
)


def read_in_a_fresh_process(root: Path, name: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", PROBE, str(root), name], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    found: dict[str, Any] = json.loads(proc.stdout)
    return found


@pytest.mark.slow
def test_reading_page_one_of_a_1_gib_file_costs_a_page_of_memory(tmp_path: Path) -> None:
    (tmp_path / "small.txt").write_text("small\n")
    with open(tmp_path / "zeros.bin", "wb") as handle:  # sparse: no disk space taken
        handle.truncate(1 << 30)
    head = "".join(f"line {i}: some text\n" for i in range(10_000))  # 190 KB of text, then 1 GiB of NUL
    with open(tmp_path / "text.log", "wb") as handle:
        handle.write(head.encode())
        handle.truncate(1 << 30)
    binary = read_in_a_fresh_process(tmp_path, "zeros.bin")
    assert binary["is_error"] is False and binary["content"].startswith("[binary file zeros.bin, 1073741824 bytes")
    text = read_in_a_fresh_process(tmp_path, "text.log")
    assert text["is_error"] is False and text["content"].startswith("     1\tline 0: some text\n")
    assert "lines 1-" in text["content"] and "of 10001;" in text["content"]  # the NULs make one last line
    for found in (binary, text):
        assert utf8_size(found["content"]) <= MAX_BYTES
        assert found["after"] - found["before"] < 10 * 1024, found  # KiB: less than 10 MB more at peak


def test_ls_pages_its_entries() -> None:
    names = [f"file-{i:06d}.txt" for i in range(100_000)]
    sandbox = MemorySandbox({f"big/{name}": "" for name in names})
    model = run(
        [[ToolCall("ls", {"path": "big"})], [ToolCall("ls", {"path": "big", "offset": 1001})], "ok"], sandbox=sandbox
    )
    [first] = tool_results(model, 1)
    [second] = tool_results(model, 2)
    for result in (first, second):
        assert utf8_size(result["content"]) <= MAX_BYTES and result["is_error"] is False
    assert first["content"].splitlines()[-1] == (
        f"[big: entries 1-{MAX_ENTRIES} of 100000; call ls with offset={MAX_ENTRIES + 1} to read on]"
    )
    assert second["content"].splitlines()[0] == f"{names[1000]}  (0 bytes)"
    # Paging on to the end lists every entry once, in order.
    names = names[:5500]
    files = SandboxFiles(MemorySandbox({f"big/{name}": "" for name in names}), SkillTree([]))
    seen: list[str] = []
    offset = 1
    while True:
        rows = files.ls("big", offset=offset).splitlines()
        more = rows[-1].startswith("[big: entries")
        seen += [row.split("  ")[0] for row in (rows[:-1] if more else rows)]
        if not more:
            break
        offset = int(rows[-1].rsplit("offset=", 1)[1].split()[0])
    assert seen == names


def test_ls_pages_a_folder_on_disk(tmp_path: Path) -> None:
    for i in range(1500):
        (tmp_path / f"n{i:04d}").write_text("x")
    model = run(
        [[ToolCall("ls", {"limit": 2000}), ToolCall("ls", {"offset": 1499})], "ok"], sandbox=LocalSandbox(tmp_path)
    )
    first, last = tool_results(model)
    assert len(first["content"].splitlines()) == MAX_ENTRIES + 1
    assert last["content"] == "n1498  (1 bytes)\nn1499  (1 bytes)"


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    probe = textwrap.dedent(
        """
        import json, sys
        from flue_runtime import Harness, LocalSandbox, agent, use_model
        from flue_runtime.models import ScriptedModel, ToolCall
        model = ScriptedModel([[ToolCall("read", {"path": "pipe"})], "ok"])

        @agent
        def a():
            use_model(model)
            return "x"

        Harness(a, sandbox=LocalSandbox(sys.argv[1])).session("s").prompt_sync("go")
        print(json.dumps(model.requests[-1].messages[-1]))
        """
    )
    proc = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["is_error"] is True and "'pipe' is not a regular file" in result["content"]


def test_an_activation_lists_a_bounded_number_of_support_files() -> None:
    many = define_skill(
        name="many",
        description="Many files.",
        instructions="Pick one.",
        files={f"docs/chapter-{i:05d}/section.md": "x" for i in range(2000)},
    )
    model = run([[ToolCall("activate_skill", {"name": "many"})], "ok"], skills=(many,))
    [result] = tool_results(model)
    assert utf8_size(result["content"]) <= MAX_BYTES
    listed = [line for line in result["content"].splitlines() if line.startswith("- /.flue/skills/many/")]
    assert 300 < len(listed) < 2000 and listed[0] == "- /.flue/skills/many/docs/chapter-00000/section.md"
    assert result["content"].endswith(
        f"[{2000 - len(listed):,} more files: call read_skill_resource with path=/.flue/skills/many and "
        f"offset={len(listed) + 1} to list them]"
    )


#: The call a result ends with, as a model sends it: the tool, then its arguments.
NEXT_CALL = re.compile(r"call (\w+) with path=(\S+) and offset=(\d+) to (?:list them|read on)\]$")


def test_every_file_of_a_large_skill_is_reached_with_the_tools_offered() -> None:
    """Issue 44 item 6: 1,500 support files and no sandbox. A model that sends only the calls the results end with,
    through tools it was offered, is shown every file's path, and reads each one."""
    files = {f"docs/part-{i // 100:02d}/section-{i:04d}.md": f"section {i}\n" for i in range(1500)}
    big = define_skill(name="big", description="A large skill.", instructions="Read what you need.", files=files)
    shown: list[str] = []

    def walk(request: ModelRequest) -> ModelResponse:
        offered = {tool["name"] for tool in request.tools}
        last = request.messages[-1]
        if last["role"] == "user":
            return ModelResponse(tool_calls=(ToolCall("activate_skill", {"name": "big"}),))
        assert last["role"] == "tool" and not last.get("is_error"), last
        if last["name"] == "read_skill_resource" and not last["content"].startswith(("- ", "Support files")):
            return ModelResponse(text="done")  # (the reads of every file came back)
        shown.extend(line[2:] for line in last["content"].splitlines() if line.startswith("- /.flue/skills/big/"))
        following = NEXT_CALL.search(last["content"])
        if following is None:
            reads = [ToolCall("read_skill_resource", {"path": path}) for path in shown]
            return ModelResponse(tool_calls=tuple(reads))
        tool, path, offset = following.groups()
        assert tool in offered, (tool, offered)
        return ModelResponse(tool_calls=(ToolCall(tool, {"path": path, "offset": int(offset)}),))

    model = run([walk] * 10, skills=(big,))
    assert sorted(shown) == sorted(f"/.flue/skills/big/{path}" for path in files)
    results = tool_results(model)[-1500:]
    assert [r["content"] for r in results] == [f"     1\tsection {i}" for i in range(1500)]
    assert all(utf8_size(r["content"]) <= MAX_BYTES for r in tool_results(model))


def test_a_folder_of_a_skill_is_listed_in_pages() -> None:
    """read_skill_resource on a folder of a skill lists the support files under it, a page at a time, each page
    ending with the call that lists the next; past the end, it says where the list ends."""
    files = {f"refs/{i:04d}.md": "x" for i in range(1200)} | {"notes.md": "y"}
    many = define_skill(name="many", description="Many files.", instructions="Pick one.", files=files)
    calls = [
        ToolCall("read_skill_resource", {"path": "/.flue/skills/many/refs/"}),
        ToolCall("read_skill_resource", {"path": "/.flue/skills/many/refs", "offset": 1001, "limit": 5}),
        ToolCall("read_skill_resource", {"path": "/.flue/skills/many", "offset": 1201}),
        ToolCall("read_skill_resource", {"path": "/.flue/skills/many/refs", "offset": 1201}),
    ]
    first, second, last, past = (r["content"] for r in tool_results(run([calls, "ok"], skills=(many,))))
    assert first.splitlines()[1] == "- /.flue/skills/many/refs/0000.md"
    assert first.endswith(
        "[/.flue/skills/many/refs: files 1-1000 of 1,200; call read_skill_resource with "
        "path=/.flue/skills/many/refs and offset=1001 to read on]"
    )
    assert second.splitlines()[1:] == [f"- /.flue/skills/many/refs/{i:04d}.md" for i in range(1000, 1005)] + [
        "[/.flue/skills/many/refs: files 1001-1005 of 1,200; call read_skill_resource with "
        "path=/.flue/skills/many/refs and offset=1006 to read on]"
    ]
    assert last.splitlines()[1:] == ["- /.flue/skills/many/refs/1199.md"]  # (notes.md is the first of 1,201)
    assert "offset 1201 is past the end of /.flue/skills/many/refs (1,200 files)" in past


#: 44 MB of text in 440,000 lines: the size of the file one `MemorySandbox` read once returned whole.
FORTY_FOUR_MB = ("x" * 99 + "\n") * 440_000
WORKSPACE_SKILL = "---\nname: big\ndescription: Holds a big file. Use when asked.\n---\nRead data.txt.\n"


@pytest.mark.parametrize("kind", ["memory", "local"])
def test_every_sandbox_bounds_every_result_and_reads_a_page_of_memory(kind: str, tmp_path: Path) -> None:
    files = {
        "big.txt": FORTY_FOUR_MB,
        ".agents/skills/big/SKILL.md": WORKSPACE_SKILL,
        ".agents/skills/big/data.txt": FORTY_FOUR_MB,
    }
    if kind == "memory":
        sandbox: object = MemorySandbox(files)
    else:
        for path, text in files.items():
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(text)
        sandbox = LocalSandbox(tmp_path)
    calls = [
        ToolCall("read", {"path": "big.txt"}),
        ToolCall("read", {"path": "big.txt", "offset": 400_000, "limit": 100_000}),
        ToolCall("read_skill_resource", {"path": "/.flue/skills/big/data.txt"}),
        ToolCall("read", {"path": "/.flue/skills/big/data.txt", "offset": 2}),
        ToolCall("ls", {"path": ".agents/skills/big"}),
    ]
    model = ScriptedModel([calls, "ok"])

    @agent
    def a() -> str:
        use_model(model)
        return "x"

    session = Harness(a, sandbox=sandbox).session("s")  # type: ignore[arg-type]
    tracemalloc.start()
    try:
        session.prompt_sync("read the big files")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    results = tool_results(model)
    assert [r["is_error"] for r in results] == [False] * len(calls), results
    for result in results:
        assert utf8_size(result["content"]) <= MAX_BYTES
    first, later, resource, virtual, listing = (r["content"] for r in results)
    assert first.startswith("     1\t" + "x" * 99) and CONTINUE.search(first)
    assert later.startswith("400000\t") and "of 440000; call read with offset=" in later
    assert resource.startswith("     1\t") and "of 440000; call read_skill_resource with offset=" in resource
    assert virtual.startswith("     2\t")
    assert listing == f"SKILL.md  ({len(WORKSPACE_SKILL)} bytes)\ndata.txt  (44000000 bytes)"
    assert peak < 16 * 1024 * 1024, f"{peak:,} bytes at peak while reading 44 MB files"


@pytest.mark.parametrize("kind", ["memory", "local"])
def test_no_result_echoes_more_than_its_budget_whatever_the_model_sends(kind: str, tmp_path: Path) -> None:
    many = define_skill(
        name="many",
        description="Many files with long names.",
        instructions="Pick one.",
        files={f"docs/{i:05d}-{'n' * 100}.md": "x" for i in range(3000)} | {"scripts/go.py": "print(1)\n"},
    )
    sandbox = MemorySandbox() if kind == "memory" else LocalSandbox(tmp_path, allow_exec=True)
    calls = [
        ToolCall("write", {"path": "a/" * 50_000 + "x", "content": "deep"}),
        ToolCall("write", {"path": "b" * 100_000, "content": "long"}),
        ToolCall("read", {"path": "q" * 100_000}),
        ToolCall("read", {"path": "./" * 30_000 + "x"}),
        ToolCall("ls", {"path": "z" * 100_000}),
        ToolCall("read", {"path": "/.flue/skills/" + "z" * 100_000}),
        ToolCall("read", {"path": "/./" * 30_000 + ".flue/skills/many/x"}),
        ToolCall("read_skill_resource", {"path": "/.flue/skills/many/missing.md"}),
        ToolCall("activate_skill", {"name": "n" * 100_000}),
    ]
    if kind == "local":
        calls.append(ToolCall("run_skill_script", {"skill": "s" * 100_000, "script": "go.py"}))
    model = run([calls, "ok"], sandbox=sandbox, skills=(many,))
    results = tool_results(model)
    assert len(results) == len(calls)
    for call, result in zip(calls, results):
        assert utf8_size(result["content"]) <= MAX_BYTES, (call.name, utf8_size(result["content"]))
        assert result["is_error"] or call.name == "activate_skill", result["content"][:300]
    assert "There is no skill named 'nnnnn" in results[8]["content"] and "(100,000 characters)" in results[8]["content"]
    missing = results[7]["content"]
    assert (
        "its files: /.flue/skills/many/SKILL.md, /.flue/skills/many/docs/00000-" in missing
        and "and 2,982 more" in missing
    )
    if kind == "memory":
        assert isinstance(sandbox, MemorySandbox) and sandbox.list("/") == []
    else:
        assert list(tmp_path.iterdir()) == []
