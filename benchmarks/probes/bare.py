"""Child process: the bare interpreter (the baseline of the mount and memory benchmarks)."""

import time

_T0 = time.perf_counter()


def peak_rss_kib() -> int:
    """Peak RSS of this process in KiB: VmHWM (ru_maxrss survives execve, so it would count the parent's)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main() -> None:
    out = {"total_ms": (time.perf_counter() - _T0) * 1e3, "rss_kib": peak_rss_kib()}
    import json

    print(json.dumps(out))


main()
