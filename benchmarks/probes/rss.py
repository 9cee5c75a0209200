"""Peak RSS of a probe process, imported by each probe only after its timings are taken."""


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
