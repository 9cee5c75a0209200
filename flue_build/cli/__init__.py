"""The `flue-skills` command: check, new, schema, ls, prompt, run, mcp, export."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import flue_runtime
from flue_runtime.errors import ConfigError, FlueError, ListError, SkillError
from flue_runtime.format.diagnostics import format_json, has_errors, printable, summary


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="flue-skills", description="Validate, scaffold and inspect agent skills.")
    parser.add_argument("--version", action="version", version=f"flue-skills {flue_runtime.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = commands.add_parser(
        "check",
        help="validate skills: a skill folder, a SKILL.md, a folder searched recursively, or a project",
        description=(
            "Report every problem in the skills under PATH, compiler style. Exit 1 on errors. "
            "A folder holding a pyproject.toml is checked as a build would: its modules are scanned "
            "for skill() and markdown() references and every referenced skill is vetted."
        ),
    )
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH", default=[Path(".")], help="default: .")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("--strict", action="store_true", help="treat warnings as errors")

    new = commands.add_parser("new", help="scaffold a valid skill", description="Create DIR/NAME/SKILL.md.")
    new.add_argument("name", metavar="NAME")
    new.add_argument("--dir", type=Path, default=Path("."), metavar="DIR", help="parent folder (default: .)")
    new.add_argument("--description", default=None, help="the skill's description")

    commands.add_parser("schema", help="print the SKILL.md frontmatter JSON Schema")

    ls = commands.add_parser(
        "ls",
        help="list the skills a wheel, an installed package or a project ships",
        description="List each skill TARGET ships: name, number and size of files, bundle package, description. "
        "TARGET is a .whl file, a project folder (holding a pyproject.toml) or an installed package or distribution name.",
    )
    ls.add_argument("target", metavar="TARGET")
    ls.add_argument("--format", choices=("text", "json"), default="text")

    from flue_build.cli import chat, export, prompt, serve

    prompt.add_parser(commands)
    chat.add_parser(commands)
    serve.add_parser(commands)
    export.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`flue-skills ls pkg | head`): what it wanted was written; say nothing more.
        # Python's own recipe: point stdout at devnull so the flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return code


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if hasattr(args, "run"):  # commands that carry their own handler (prompt, run, mcp, export)
            return _run(args)
        if args.command == "check":
            return _check(parser, args)
        if args.command == "new":
            return _new(args)
        if args.command == "ls":
            return _ls(args)
        from flue_runtime.format.schema import schema_text

        sys.stdout.write(schema_text())
        return 0
    except FlueError as exc:
        print(error_line(args.command, exc), file=sys.stderr)
        return 2


def error_line(command: str, exc: BaseException) -> str:
    """`flue-skills COMMAND: error: ...`, what the error says of installed data or a path escaped
    (`printable`, line by line)."""
    text = "\n".join(printable(line) for line in str(exc).split("\n"))
    return f"flue-skills {command}: error: {text}"


def _run(args: argparse.Namespace) -> int:
    """A problem with TARGET or DIR, or a missing optional extra: one line on stderr, exit 1."""
    try:
        return int(args.run(args))
    except (FlueError, ImportError) as exc:
        print(error_line(args.command, exc), file=sys.stderr)
        return 1


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        parser.exit(2, f"flue-skills check: error: no such file or directory: {', '.join(missing)}\n")
    from flue_build.cli.check import check_paths

    try:
        report = check_paths(args.paths, strict=args.strict)
    except ConfigError as exc:
        return _config_failed("check", exc)
    if args.format == "json":
        print(format_json(report.diagnostics))
    else:
        for diagnostic in report.diagnostics:
            print(diagnostic.format())
        for project in report.projects:
            named = f" ({printable(project.identity)})" if project.identity else ""
            print(
                f"project {project.root}{named}: scanned {project.modules} module{'' if project.modules == 1 else 's'}, "
                f"found {project.references} reference{'' if project.references == 1 else 's'}"
            )
        print(summary(report.diagnostics, report.checked))
    return 1 if has_errors(report.diagnostics) else 0


def _config_failed(command: str, exc: ConfigError) -> int:
    """Each problem once, on a line of its own, then one line saying what is wrong: exit 1."""
    from flue_runtime.format.paths import display_path

    shown = display_path(exc.path)
    for line in exc.lines(shown):
        print(line, file=sys.stderr)
    print(f"flue-skills {command}: error: {shown}: {exc.headline}", file=sys.stderr)
    return 1


def _ls(args: argparse.Namespace) -> int:
    from flue_build.cli import ls as listing

    notes: list[str] = []
    try:
        skills = listing.list_target(args.target, notes)
    except ListError as exc:
        print(error_line("ls", exc), file=sys.stderr)
        return 1
    except ConfigError as exc:
        return _config_failed("ls", exc)
    except SkillError as exc:
        print(exc.report(), file=sys.stderr)
        print(error_line("ls", exc), file=sys.stderr)
        return 1
    for note in notes:  # raw skill folders of a distribution built without the hook: skipped, or warned about
        print(f"flue-skills ls: warning: {printable(note)}", file=sys.stderr)
    if args.format == "json":
        print(listing.format_json(skills))
    else:
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        print(listing.format_text(skills, width))
    return 0


def _new(args: argparse.Namespace) -> int:
    from flue_build.cli.new import new_skill
    from flue_runtime.format.validate import PLACEHOLDER_DESCRIPTION

    created = new_skill(args.name, args.dir, args.description or PLACEHOLDER_DESCRIPTION)
    print(f"created {created}")
    if not args.description:
        print(
            "next: replace its placeholder description (until then `flue-skills check` warns: FLU213, "
            "an error under --strict) and write its instructions"
        )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
