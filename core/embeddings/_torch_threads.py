"""One place that sizes torch's thread pool for the local models.

torch defaults to one thread per physical core and an inter-op pool on top; on the small
shared machines ragdesk targets that oversubscribes. By default a process takes its share of the
cores: the cores divided by the worker processes on the machine (``share_cores``, told by the
job queue's workers, core/jobs/machine.py), at most 4. ``RAGDESK_TORCH_THREADS`` overrides.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_MAX_DEFAULT_THREADS = 4
_sharing = 1  # worker processes on this machine sharing its cores (share_cores)


def _pinned() -> int:
    return int(os.environ.get("RAGDESK_TORCH_THREADS", "0") or 0)


def default_threads() -> int:
    """This process's share of the cores: cores / worker processes on the machine, 1 to 4."""
    return max(1, min(_MAX_DEFAULT_THREADS, len(os.sched_getaffinity(0)) // max(1, _sharing)))


def configure_torch_threads() -> int:
    import torch

    wanted = _pinned() or default_threads()
    if torch.get_num_threads() != wanted:
        torch.set_num_threads(wanted)
    return wanted


def share_cores(processes: int) -> int | None:
    """``processes`` worker processes share this machine: torch's threads become this process's
    share now (on the torch thread, whose OpenMP team is the one that runs), when torch is loaded
    and ``RAGDESK_TORCH_THREADS`` does not pin them. The threads now, or None."""
    global _sharing
    _sharing = max(1, processes)
    if _pinned() or "torch" not in sys.modules:
        return None
    import torch

    wanted = default_threads()
    if on_torch_thread(torch.get_num_threads) != wanted:
        on_torch_thread(torch.set_num_threads, wanted)
    return wanted


# Every torch call of the local models runs on this one thread. torch's CPU kernels use an OpenMP
# team per calling thread, and once a process has more team threads than cores, libgomp stops
# spinning between parallel regions and every matmul waits to be woken: the ingest thread, the
# dashboard's script threads and the CLI's main thread each brought a team, and e5 lost ~20% of
# its speed (benchmarks/ingest_overhead.py; docs/ingestion.md). One thread keeps one team.
_torch_thread: ThreadPoolExecutor | None = None
_torch_thread_lock = threading.Lock()
_TORCH_THREAD_NAME = "ragdesk-torch"


def on_torch_thread(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` run on the process's torch thread (directly when already there)."""
    global _torch_thread
    if threading.current_thread().name.startswith(_TORCH_THREAD_NAME):
        return fn(*args)
    with _torch_thread_lock:
        if _torch_thread is None:
            _torch_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=_TORCH_THREAD_NAME)
    return _torch_thread.submit(fn, *args).result()
