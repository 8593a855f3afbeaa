"""Import and sync timings of a Drive folder against the local fake Drive server (no Google).

    PYTHONPATH=. python benchmarks/gdrive_sync.py [FILES]

Prints: import time, a no-change sync (Changes API, nothing to do), a sync after editing 10% of
the files, and the Drive API calls each made. Hash embedder: this measures the connector and the
sync engine, not the embedding model."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.config import RuntimeConfig  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.types import SYSTEM_ACTOR as A  # noqa: E402
from tests.fakes.drive_server import FakeDrive  # noqa: E402


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeDrive(max_page=100) as drive:
        engine = Engine(RuntimeConfig.from_env(Path(tmp) / "data"))
        engine.save_settings(A, {"embedding": {"provider": "local", "model": "hash-64"}, "gdrive": drive.settings()})
        root = drive.folder("Bench")
        ids = [drive.add(f"doc{i:04d}.txt", "text/plain", drive.folder(f"sub{i // 50}", root) if i % 50 == 0 else root,
                         content=f"Document {i} talks about topic {i % 17} in some detail.".encode()) for i in range(n)]
        engine.gdrive_connect_refresh_token(A, drive.issue_refresh_token())
        engine.create_kb(A, "bench")
        for label, before in (("import", None), ("no-change sync", None), ("sync after 10% edits", "edit")):
            if before == "edit":
                for fid in ids[:: 10]:
                    drive.edit(fid, content=b"edited text " + fid.encode())
            calls = len(drive.requests)
            started = time.perf_counter()
            report = engine.gdrive_import(A, "bench", [root], watch=True) if label == "import" else engine.gdrive_sync(A)[0]
            elapsed = time.perf_counter() - started
            d = report.as_dict()
            print(f"{label:<22} {elapsed:7.2f} s  added {d['added']:>4} updated {d['updated']:>4} removed {d['removed']:>3} "
                  f"failed {d['failed']}  Drive calls {len(drive.requests) - calls}")
        engine.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
