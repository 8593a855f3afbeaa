"""Threat: the data folder's disk fills up. The embedded vector store writes through memory-mapped
files, and on a full disk ``ingest``, ``search`` and ``doctor`` died with SIGBUS and no message.
Now writes are refused below a free-space floor, before anything of a file is stored, and reads
work or fail with a message, never a signal (core/storage/diskspace.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import DiskFull
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR, Actor
from core.vectorstore.edge import EdgeStore
from tests.engine.conftest import HANDBOOK_MD

REPO = Path(__file__).resolve().parents[2]


def _stored(engine, data_dir: Path) -> list[str]:
    """Every kept original and parsed text: files, and the small ones kept as database rows."""
    originals_as_rows, parsed_as_rows = engine._blobs.stored_rows()
    files = [p.name for folder in ("files", "parsed") for p in (data_dir / folder).rglob("*") if p.is_file()]
    return sorted(files + list(originals_as_rows) + list(parsed_as_rows))


def test_files_are_refused_before_anything_is_stored_when_the_floor_is_not_met(kb_engine, data_dir):
    kb_engine.save_settings(SYSTEM_ACTOR, {"parsing": {"min_free_disk_mb": 1_000_000}})  # more than this disk has
    uploads = [Upload(f"note-{i}.md", f"# Note {i}\n\n{HANDBOOK_MD}".encode()) for i in range(3)]
    results = kb_engine.ingest(SYSTEM_ACTOR, "kb", uploads)
    assert [r.status for r in results] == ["failed"] * 3
    assert all("was not stored: the data folder's disk has" in r.error and "parsing.min_free_disk_mb" in r.error
               for r in results)
    assert _stored(kb_engine, data_dir) == [] and kb_engine.list_files(SYSTEM_ACTOR) == []  # no original, text or row
    assert kb_engine.kb_stats(SYSTEM_ACTOR, "kb")["vectors"] == 0
    bob = kb_engine.sign_up("bob", "correct horse battery")
    chat = kb_engine.create_chat(Actor(user_id=bob.id, role="user"), "t")
    [refused] = kb_engine.attach_to_chat(Actor(user_id=bob.id, role="user"), chat.id, [uploads[0]])
    assert refused.error == "'note-0.md' was not stored: the server's disk is almost full. Ask an administrator to free space."
    kb_engine.save_settings(SYSTEM_ACTOR, {"parsing": {"min_free_disk_mb": 64}})
    assert [r.status for r in kb_engine.ingest(SYSTEM_ACTOR, "kb", uploads)] == ["indexed"] * 3


def test_the_embedded_store_refuses_to_open_a_collection_it_could_not_write(tmp_path):
    """Reproduced on a filled tmpfs below; here the store is asked to keep more free than this disk has."""
    from core.storage.diskspace import free_bytes

    store = EdgeStore(tmp_path / "vectors")
    store.create_collection("c", 4)
    store.close()
    store = EdgeStore(tmp_path / "vectors", min_free_mb=free_bytes(tmp_path) // (1024 * 1024) + 10_000)
    with pytest.raises(DiskFull, match=r"has \d+ MB free; it needs at least \d+ MB to open collection c"):
        store.count("c")
    with pytest.raises(DiskFull, match="to create collection d"):
        store.create_collection("d", 4)
    store.close()


def _can_mount_a_private_tmpfs() -> str:
    if sys.platform != "linux" or os.geteuid() != 0 or shutil.which("unshare") is None:
        return "needs Linux, root and unshare(1) to mount a private tmpfs"
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs -o size=1m tmpfs /mnt"], capture_output=True)
    return "" if probe.returncode == 0 else f"mounting a tmpfs is not permitted here: {probe.stderr.decode()[:200]}"


def test_a_full_disk_gives_messages_not_sigbus(tmp_path):
    """The real thing: a 300 MB tmpfs in a private mount namespace (gone when the child exits),
    filled to 1 MB free, then the CLI's ingest, search, doctor and listings."""
    reason = _can_mount_a_private_tmpfs()
    if reason:
        pytest.skip(reason)
    mount = tmp_path / "disk"
    mount.mkdir()
    script = f"mount -t tmpfs -o size=300m tmpfs {mount} && exec {sys.executable} -m tests.reliability.full_disk_child {mount / 'data'}"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report["first"] == "indexed"
    batch = {name: (status, error) for name, status, error in report["batch"]}
    assert batch.pop("big.txt")[1].startswith("'big.txt' was not stored: the data folder's disk has")
    assert set(status for status, _ in batch.values()) == {"indexed"} and len(batch) == 9
    assert "big.txt" not in report["files"] and len(report["files"]) == 10
    assert report["free_mb"] <= 1
    sigbus = 128 + signal.SIGBUS
    for command in ("search", "doctor", "kb_list", "ingest"):
        run = report[command]
        assert run["rc"] not in (sigbus, -signal.SIGBUS) and run["rc"] != 0, (command, run)
        assert "Traceback" not in run["err"], (command, run["err"])
    # the figure is rounded free space when each command ran: a command before it may have released
    # a journal or lock file, so "1 MB" can read "2 MB" — the refusal, not the exact megabyte, is the point
    store_refusal = re.compile(r"has (\d+) MB free; it needs at least 64 MB")
    for command in ("search", "doctor", "kb_list"):
        found = store_refusal.search(report[command]["err"])
        assert found and int(found.group(1)) <= 3, (command, report[command]["err"])
    # refused before anything is written: per file, or (the collection is opened first) for the whole call
    ingest = report["ingest"]["out"] + report["ingest"]["err"]
    found = (re.search(r"'late\.md' was not stored: the data folder's disk has (\d+) MB free", ingest)
             or store_refusal.search(ingest))
    assert found and int(found.group(1)) <= 3, ingest
    assert report["files_list"]["rc"] == 0 and "first.md" in report["files_list"]["out"]
