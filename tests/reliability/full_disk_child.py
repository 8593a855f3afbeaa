"""Run inside a private mount namespace whose data folder is a small tmpfs (see test_disk_full.py):
fill the disk and report what each command did, as JSON on stdout.

    python -m tests.reliability.full_disk_child <data folder on the tmpfs>
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from core.config import RuntimeConfig
from core.engine import Engine
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD

_MB = 1024 * 1024


def _free(path: Path) -> int:
    stats = os.statvfs(path)
    return stats.f_bavail * stats.f_frsize


def _fill(mount: Path, leave_bytes: int) -> None:
    with open(mount / "filler", "ab") as out:
        os.posix_fallocate(out.fileno(), 0, max(0, _free(mount) - leave_bytes))


def _cli(data: Path, *args: str) -> dict:
    env = dict(os.environ, RAGDESK_DATA_DIR=str(data), RAGDESK_EMBEDDING__MODEL="hash-64", HF_HUB_OFFLINE="1")
    proc = subprocess.run([sys.executable, "-m", "core", *args], env=env, capture_output=True, text=True, timeout=300)
    return {"rc": proc.returncode, "out": proc.stdout, "err": proc.stderr[-2000:]}


def main(data: Path) -> dict:
    mount = data.parent
    report: dict = {}
    engine = Engine(RuntimeConfig.from_env(data))
    engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"},
                                        "parsing": {"min_free_disk_mb": 64, "max_upload_mb": 200}})
    engine.create_kb(SYSTEM_ACTOR, "kb")
    [first] = engine.ingest(SYSTEM_ACTOR, "kb", [Upload("first.md", HANDBOOK_MD.encode())])
    report["first"] = first.status
    # one file that would cross the floor in a batch of ten: it fails alone, the nine are indexed
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"min_free_disk_mb": (_free(mount) - 20 * _MB) // _MB}})
    uploads = [Upload(f"note-{i}.md", f"# Note {i}\n\n{HANDBOOK_MD}\nNote {i}.".encode()) for i in range(9)]
    uploads.insert(5, Upload("big.txt", b"big file of words " * (30 * _MB // 18)))
    report["batch"] = [(r.name, r.status, r.error) for r in engine.ingest(SYSTEM_ACTOR, "kb", uploads)]
    report["files"] = sorted(f.name for f in engine.list_files(SYSTEM_ACTOR))
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"min_free_disk_mb": 64}})
    engine.close()
    _fill(mount, 1 * _MB)  # the disk is full: 1 MB left
    report["free_mb"] = _free(mount) / _MB
    for name, args in [("search", ("search", "--kb", "kb", "remote work")), ("doctor", ("doctor",)),
                       ("kb_list", ("kb", "list")), ("files_list", ("files", "list")),
                       ("ingest", ("ingest", "--kb", "kb", str(mount.parent / "late.md")))]:
        report[name] = _cli(data, *args)
    return report


if __name__ == "__main__":
    target = Path(sys.argv[1])
    (target.parent.parent / "late.md").write_text("# Late\n\nA file that arrives when the disk is full.\n")
    print(json.dumps(main(target)))
