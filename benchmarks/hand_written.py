"""What hand-written code beside a library saves a user, interleaved in one run (issue 35; BENCHMARKS.md).

    .venv/bin/python benchmarks/hand_written.py yaml BASELINE_TREE [--rounds 21]
    .venv/bin/python benchmarks/hand_written.py jsonschema [--rounds 21]
    .venv/bin/python benchmarks/hand_written.py docstrings [--rounds 21]   # docstring-parser and griffe: the test extra
    .venv/bin/python benchmarks/hand_written.py cachetools [--rounds 21]   # needs cachetools (the mcp extra)
    .venv/bin/python benchmarks/hand_written.py supervisor [--rounds 21]   # needs psutil

`yaml`: this tree against BASELINE_TREE, another checkout (e.g. `git worktree add /tmp/noplain HEAD`, then
`frontmatter._read_plain` removed there; `--tree` names another than this one). Each round runs, for each tree
in a rotated order, fresh processes of:

- `check`: `python -m flue_build check` of three generated skills (the start-up benchmark's inputs);
- `bundled`: an agent process's start-up from an installed wheel (`probes/mount.py`: import
  flue_runtime, resolve every `skill()` of a hook-built wheel, render the catalog);
- `dev`: the same from a source tree (dev mode: every SKILL.md read and validated from disk).

`jsonschema`: fresh processes of `python -c pass`, `python -c "import jsonschema"` and
`probes/first_validation.py` making a typed function a tool and checking one call, its schema compiled by
the compact validator (`tools`) or by jsonschema (`tools-jsonschema`).

`docstrings` (issue 42): fresh processes of `python -c pass` and `probes/first_validation.py` making a typed
function with an `Args:` section a tool (`docstring`), and the same with the docstring parsed again by
docstring_parser or by griffe (`docstring-docstring_parser`, `docstring-griffe`): what reading docstrings through
the library adds to the process.

`supervisor` (issue 42): fresh processes of a bare `python -I -S` (how the supervisor runs) and `python -I`, the
supervisor's source listing its children (`children()`) and psutil's `Process().children()`, which needs
site-packages (`-I` alone): what reading /proc through psutil would add to each script call.

`cachetools` (issue 42): fresh processes of `python -c pass`, `import cachetools`, `import flue_runtime.mcp.server`
(a skills server's imports) and the same with cachetools: what the byte-budget cache's library adds to a server.

Prints a markdown table of medians (wall, and the child's CPU: user + system), with the load average
before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from run import EPOCH, Command, Samples, interleave, run_once  # noqa: E402


def env(*path: Path | str) -> dict[str, str]:
    """A child's environment: `path` first on sys.path, nothing else from this process's PYTHON* variables."""
    out = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    out["PYTHONPATH"] = os.pathsep.join(map(str, path))
    return out


def inputs(work: Path, tree: Path, skills: int) -> tuple[list[Path], Path, Path]:
    """Three skills for `check`, an installed (unpacked, byte-compiled) hook-built wheel, a dev-mode source tree."""
    rng = random.Random(generate.SEED + 5)
    few = [work / "few" / generate.skill_name(n) for n in range(3)]
    for skill in few:
        generate.write_skill(skill, rng, skill.name, files=4, binary=False)
    pack = generate.make_pack_project(work / "pack", skills=skills, files=4, binary_every=0)
    build = "from hatchling.build import build_wheel; import sys; build_wheel(sys.argv[1])"
    hook = env(tree, tree / "hatch_plugin")
    run_once(
        Command([sys.executable, "-c", build, str(work / "dist")], {**hook, "SOURCE_DATE_EPOCH": EPOCH}, pack.root)
    )
    [wheel] = (work / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(work / "site")
    run_once(Command([sys.executable, "-m", "compileall", "-q", str(work / "site")]))
    dev = generate.make_dev_package(work / "dev", skills=skills)
    return few, work / "site", dev


def yaml(args: argparse.Namespace, work: Path) -> None:
    trees = {"tree": args.tree.resolve(), "baseline": args.baseline.resolve()}
    python, mount = sys.executable, str(HERE / "probes" / "mount.py")
    few, site, dev = inputs(work, trees["tree"], args.skills)
    commands: dict[str, Command] = {}
    for label, tree in trees.items():
        commands[f"check {label}"] = Command([python, "-m", "flue_build", "check", *map(str, few)], env(tree), work)
        commands[f"bundled {label}"] = Command([python, mount, "benchpack.agents"], env(site, tree), work)
        commands[f"dev {label}"] = Command([python, mount, "benchdev.agent"], env(dev, tree), work)
    res = measure(commands, args.rounds)
    print("| figure | tree: wall / CPU | baseline: wall / CPU | ratio wall / CPU |")
    print("|---|---|---|---|")
    for what in ("check", "bundled", "dev"):
        ours, theirs = res[f"{what} tree"], res[f"{what} baseline"]
        print(
            f"| {what} | {ours.median * 1e3:.1f} / {ours.cpu_median * 1e3:.1f} ms "
            f"| {theirs.median * 1e3:.1f} / {theirs.cpu_median * 1e3:.1f} ms "
            f"| {ours.median / theirs.median:.3f} / {ours.cpu_median / theirs.cpu_median:.3f} |"
        )


def jsonschema(args: argparse.Namespace, work: Path) -> None:
    python, probe, tree = sys.executable, str(HERE / "probes" / "first_validation.py"), env(args.tree.resolve())
    commands = {
        "`python -c pass`": Command([python, "-c", "pass"], tree, work),
        "`python -c 'import jsonschema'`": Command([python, "-c", "import jsonschema"], tree, work),
        "a typed tool, one call checked: compact validator": Command([python, probe, "tools"], tree, work),
        "the same, its schema compiled by jsonschema": Command([python, probe, "tools-jsonschema"], tree, work),
    }
    res = measure(commands, args.rounds)
    bare = res["`python -c pass`"]
    print("| process | wall / CPU | over `pass`: wall / CPU |")
    print("|---|---|---|")
    for name, found in res.items():
        print(
            f"| {name} | {found.median * 1e3:.1f} / {found.cpu_median * 1e3:.1f} ms "
            f"| {(found.median - bare.median) * 1e3:.1f} / {(found.cpu_median - bare.cpu_median) * 1e3:.1f} ms |"
        )


def docstrings(args: argparse.Namespace, work: Path) -> None:
    python, probe, tree = sys.executable, str(HERE / "probes" / "first_validation.py"), env(args.tree.resolve())
    commands = {"`python -c pass`": Command([python, "-c", "pass"], tree, work)}
    for kind in ("docstring", "docstring-docstring_parser", "docstring-griffe"):
        commands[f"`{kind}`"] = Command([python, probe, kind], tree, work)
    over_pass(measure(commands, args.rounds), "`python -c pass`")


def cachetools(args: argparse.Namespace, work: Path) -> None:
    python, tree = sys.executable, env(args.tree.resolve())
    commands = {
        f"`python -c '{code}'`": Command([python, "-c", code], tree, work)
        for code in (
            "pass",
            "import cachetools",
            "import flue_runtime.mcp.server",
        )
    }
    over_pass(measure(commands, args.rounds), "`python -c 'pass'`")


def supervisor(args: argparse.Namespace, work: Path) -> None:
    python, tree = sys.executable, env(args.tree.resolve())
    source = (args.tree.resolve() / "flue_runtime" / "agents" / "supervisor.py").read_text(encoding="utf-8")
    source = source.replace('if __name__ == "__main__":\n    supervise(sys.argv)', "") + "\nchildren()\n"
    psutil = "import psutil; psutil.Process().children()"
    commands = {
        "`python -I -S -c pass`": Command([python, "-I", "-S", "-c", "pass"], tree, work),
        "`python -I -c pass`": Command([python, "-I", "-c", "pass"], tree, work),
        "the supervisor's source and `children()`, `python -I -S`": Command(
            [python, "-I", "-S", "-c", source], tree, work
        ),
        f"`python -I -c '{psutil}'`": Command([python, "-I", "-c", psutil], tree, work),
    }
    over_pass(measure(commands, args.rounds), "`python -I -S -c pass`")


def over_pass(res: dict[str, Samples], bare_name: str) -> None:
    bare = res[bare_name]
    print("| process | wall / CPU | over the bare interpreter: wall / CPU |")
    print("|---|---|---|")
    for name, found in res.items():
        print(
            f"| {name} | {found.median * 1e3:.1f} / {found.cpu_median * 1e3:.1f} ms "
            f"| {(found.median - bare.median) * 1e3:.1f} / {(found.cpu_median - bare.cpu_median) * 1e3:.1f} ms |"
        )


def measure(commands: dict[str, Command], rounds: int) -> dict[str, Samples]:
    for command in commands.values():  # every command must work before anything is timed
        run_once(command)
    load = os.getloadavg()[0]
    res = interleave(commands, rounds, warmup=1, parse=False)
    print(f"load average (1 min) before / after: {load:.2f} / {os.getloadavg()[0]:.2f}; rounds: {rounds}\n")
    return res


SUBJECTS = {
    "yaml": yaml,
    "jsonschema": jsonschema,
    "docstrings": docstrings,
    "cachetools": cachetools,
    "supervisor": supervisor,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=list(SUBJECTS))
    parser.add_argument("baseline", type=Path, nargs="?", help="yaml: the tree to compare with")
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="the tree measured (default: this one)")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--skills", type=int, default=100, help="yaml: skills in the wheel and in the dev tree")
    parser.add_argument("--workdir", type=Path, help="keep the generated inputs here (default: a temporary folder)")
    args = parser.parse_args()
    if args.what == "yaml" and args.baseline is None:
        parser.error("yaml needs BASELINE_TREE")
    with tempfile.TemporaryDirectory(prefix="flue-hand-written-") as temporary:
        work = args.workdir.resolve() if args.workdir else Path(temporary)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        SUBJECTS[args.what](args, work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
