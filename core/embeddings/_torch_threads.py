"""One place that sizes torch's thread pool for the local models.

torch defaults to one thread per physical core and an inter-op pool on top; on the small
shared machines ragdesk targets that oversubscribes. ``RAGDESK_TORCH_THREADS`` overrides.
"""

from __future__ import annotations

import os

_MAX_DEFAULT_THREADS = 4


def configure_torch_threads() -> int:
    import torch

    wanted = int(os.environ.get("RAGDESK_TORCH_THREADS", "0") or 0)
    if wanted <= 0:
        wanted = max(1, min(_MAX_DEFAULT_THREADS, len(os.sched_getaffinity(0))))
    if torch.get_num_threads() != wanted:
        torch.set_num_threads(wanted)
    return wanted
