"""What creating one small file costs on the file system that holds the data folder.

Ingestion writes two small files per document (its original and its parsed text, each a temp file
renamed into place, as ``core/ingest/blobs.py`` does), so on a machine whose file system is slow at
creating inodes this is a fixed cost per document. Prints wall and CPU microseconds per file, with
and without a ``syncfs`` per 128 files (ingestion syncs once per group).

    .venv/bin/python benchmarks/small_files.py [--dir ./data] [--files 1600] [--rounds 2]

The first round after the machine has sat idle can be several times slower than the next: the
file system's metadata has left the page cache.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import tempfile
import time
from pathlib import Path


def _syncfs(folder: str, libc) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        libc.syncfs(fd)
    finally:
        os.close(fd)


def one_round(parent: Path, files: int, sync_every: int, libc) -> tuple[float, float]:
    folder = tempfile.mkdtemp(dir=parent)
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(files):
        tmp = f"{folder}/.f{i}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, b"x" * 300)
        os.close(fd)
        os.replace(tmp, f"{folder}/f{i}")
        if sync_every and i % sync_every == sync_every - 1:
            _syncfs(folder, libc)
    return (time.perf_counter() - wall) / files * 1e6, (time.process_time() - cpu) / files * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    ap.add_argument("--files", type=int, default=1600)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    with tempfile.TemporaryDirectory(dir=args.dir) as parent:
        print(f"{args.files} files of 300 bytes in {args.dir}")
        for rnd in range(args.rounds):
            for sync_every in (0, 128):
                wall, cpu = one_round(Path(parent), args.files, sync_every, libc)
                how = f"syncfs every {sync_every}" if sync_every else "no sync"
                print(f"round {rnd + 1}, {how:<16}: {wall:6.0f} µs wall, {cpu:6.0f} µs CPU per file", flush=True)


if __name__ == "__main__":
    main()
