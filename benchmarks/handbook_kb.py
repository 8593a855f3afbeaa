"""The knowledge base the near-miss and follow-up benchmarks ask: real material, two languages.

The demo's bilingual employee handbook (``core/demo/handbook_en.md``, ``handbook_zh.md``) and the
shared Chinese regulation (``../shared/data/zh-policy/*.md``), indexed through the real Engine with
the default embedder (multilingual-e5-small) into a data folder. A kept folder (``--data``) is
reused: the second run embeds only the questions.
"""

from __future__ import annotations

import sys
import zlib
from importlib import resources
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from core.config import RuntimeConfig  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.ingest.service import Upload  # noqa: E402
from core.types import SYSTEM_ACTOR as ADMIN  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
KB = "handbook-and-regulation"


def uploads() -> list[Upload]:
    demo = resources.files("core.demo")
    policy = sorted((SHARED / "zh-policy").glob("*.md"))
    if not policy:
        raise SystemExit(f"the shared regulation is missing: {SHARED / 'zh-policy'}")
    return ([Upload(name, demo.joinpath(name).read_bytes()) for name in ("handbook_en.md", "handbook_zh.md")]
            + [Upload(p.name, p.read_bytes()) for p in policy])


def open_engine(data: Path) -> Engine:
    engine = Engine(RuntimeConfig(data_dir=data, database_url=f"sqlite:///{data / 'ragdesk.db'}"))
    engine.save_settings(ADMIN, {"embedding": {"provider": "local", "model": "multilingual-e5-small"},
                                 "llm": {"provider": "extractive"}})
    if not any(kb.name == KB for kb in engine.list_kbs(ADMIN)):
        engine.create_kb(ADMIN, KB)
        for result in engine.ingest(ADMIN, KB, uploads()):
            if result.status != "indexed":
                raise SystemExit(f"ingest failed: {result.name}: {result.error}")
            print(f"ingested {result.name}: {result.chunks} chunks", file=sys.stderr)
    return engine


def split_of(item_id: str) -> str:
    """A fixed half of the set by a hash of the item's id: 'tune' (thresholds and rules are chosen
    on it) or 'report' (the figures that are quoted). The same on every machine and run."""
    return "tune" if zlib.crc32(item_id.encode("utf-8")) % 2 == 0 else "report"
