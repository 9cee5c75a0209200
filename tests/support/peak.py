"""How far a child process's memory grows from a point on, in code the child runs: `FROM_HERE` marks the point,
`GROWN` is the growth since, in bytes. On Linux the peak is reset at the point (`/proc/self/clear_refs`), so a peak
reached before it (while importing) hides no growth below it; elsewhere the peak so far is the mark."""

FROM_HERE = """
import resource
def memory(key):  # VmRSS (now) or VmHWM (the peak since the reset); elsewhere than Linux, the peak so far
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith(key + ":"))
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
try:
    with open("/proc/self/clear_refs", "w") as marks:
        marks.write("5")
except OSError:
    pass
before = memory("VmRSS")
"""
GROWN = 'memory("VmHWM") - before'
