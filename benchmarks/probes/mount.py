"""Child process of the mount benchmarks: mount every skill a module references, render the catalog.

    python mount.py MODULE [--activate N] [--activate-all] [--compile]

Prints one JSON object: phase times in ms since the first line of this script, the
peak RSS (KiB) after mounting, how many references hold their instructions, and with
--activate the cost of activating skill N (cold: first activation in the process) and
skill N+1 (warm); with --activate-all, every skill's instructions and the peak RSS after;
with --compile, how long compiling MODULE's source takes (after everything else).
"""

import time

_T0 = time.perf_counter()

import sys  # noqa: E402


def main() -> None:
    module_name = sys.argv[1]
    args = sys.argv[2:]
    import flue_runtime  # noqa: F401

    t_import = time.perf_counter()
    __import__(module_name)  # its skill() calls run here (the builtin: importlib is not flue's cost)
    module = sys.modules[module_name]
    skills = module.SKILLS
    t_resolve = time.perf_counter()
    from flue_runtime.agents.catalog import catalog

    text = catalog([(ref.name, ref.description) for ref in skills])
    t_catalog = time.perf_counter()
    from rss import peak_rss_kib  # after the timings: not part of what is measured

    out = {
        "skills": len(skills),
        "catalog_chars": len(text),
        "import_ms": (t_import - _T0) * 1e3,
        "resolve_ms": (t_resolve - t_import) * 1e3,
        "catalog_ms": (t_catalog - t_resolve) * 1e3,
        "total_ms": (t_catalog - _T0) * 1e3,
        "rss_kib": peak_rss_kib(),
        "held_instructions": sum(1 for ref in skills if "_instructions" in vars(ref)),
    }
    if "--compile" in args:
        # What importing the referencing module's own source costs, flue aside: zipimport keeps
        # no bytecode, so from a zipped wheel the module is compiled in every process.
        source = module.__spec__.loader.get_data(module.__file__)
        start = time.perf_counter()
        compile(source, module.__file__, "exec")
        out["module_compile_ms"] = (time.perf_counter() - start) * 1e3
    if "--activate" in args:
        index = int(args[args.index("--activate") + 1])
        for label, ref in (("cold", skills[index]), ("warm", skills[index + 1])):
            start = time.perf_counter()
            body = ref.instructions
            files = ref.resources
            out[f"activate_{label}_ms"] = (time.perf_counter() - start) * 1e3
            out[f"activate_{label}_chars"] = len(body) + sum(len(f) for f in files)
    if "--activate-all" in args:
        start = time.perf_counter()
        out["instructions_chars"] = sum(len(ref.instructions) for ref in skills)
        out["activate_all_ms"] = (time.perf_counter() - start) * 1e3
        out["held_after"] = sum(1 for ref in skills if "_instructions" in vars(ref))
        out["rss_after_kib"] = peak_rss_kib()
    import json

    print(json.dumps(out))


main()
