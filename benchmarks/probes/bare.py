"""Child process: the bare interpreter (the baseline of the mount and memory benchmarks)."""

import time

_T0 = time.perf_counter()


def main() -> None:
    total_ms = (time.perf_counter() - _T0) * 1e3
    from rss import peak_rss_kib  # after the timings: not part of what is measured

    out = {"total_ms": total_ms, "rss_kib": peak_rss_kib()}
    import json

    print(json.dumps(out))


main()
