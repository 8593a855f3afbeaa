"""Per-phase peaks of a process's resident memory, split into anonymous and file-backed pages.

``ru_maxrss`` is one number for the whole run and counts pages of memory-mapped files (a vector
store's segments read through the page cache) like heap. Those pages are the kernel's to drop
under pressure; the heap is not. A watcher *process* (a thread would wait for the GIL, which the
embedded engine holds through a whole index build) reads ``/proc/<pid>/status`` every 50 ms and
reports, per named phase, the peak of ``RssAnon`` (heap, the part a memory budget is about), of
``RssFile`` and of their sum ``VmRSS``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager

_FIELDS = ("VmRSS", "RssAnon", "RssFile")

# Runs in the watcher: samples until a line arrives on stdin, then prints the peaks and exits.
_WATCHER = r"""
import select, sys
fields, path, peak = ("VmRSS", "RssAnon", "RssFile"), f"/proc/{sys.argv[1]}/status", {}
def sample():
    for line in open(path):
        key = line.split(":", 1)[0]
        if key in fields:
            peak[key] = max(peak.get(key, 0), int(line.split()[1]))
sample()
print("ready", flush=True)
while not select.select([sys.stdin], [], [], 0.05)[0]:
    sample()
sample()
print(" ".join(str(peak.get(k, 0)) for k in fields), flush=True)
"""


def resident_mb(pid: int | None = None) -> dict[str, float]:
    out = dict.fromkeys(_FIELDS, 0.0)
    with open(f"/proc/{pid or 'self'}/status") as fh:
        for line in fh:
            key = line.split(":", 1)[0]
            if key in out:
                out[key] = int(line.split()[1]) / 1024
    return out


class PhasePeaks:
    """``with peaks.phase("build"): ...`` records that phase's peaks (MB) in ``peaks.rows``."""

    def __init__(self):
        self.rows: dict[str, dict[str, float]] = {}

    @contextmanager
    def phase(self, name: str):
        watcher = subprocess.Popen([sys.executable, "-c", _WATCHER, str(os.getpid())],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert watcher.stdout is not None and watcher.stdin is not None
        watcher.stdout.readline()  # sampling has started
        try:
            yield
        finally:
            watcher.stdin.write("done\n")
            watcher.stdin.flush()
            values = watcher.stdout.readline().split()
            watcher.wait()
            self.rows[name] = {k: int(v) / 1024 for k, v in zip(_FIELDS, values)}

    def table(self) -> str:
        lines = [f"{'phase':<22} {'peak RSS':>10} {'peak anon':>10} {'peak file':>10}"]
        for name, r in self.rows.items():
            lines.append(f"{name:<22} {r['VmRSS']:>7.0f} MB {r['RssAnon']:>7.0f} MB {r['RssFile']:>7.0f} MB")
        return "\n".join(lines)
