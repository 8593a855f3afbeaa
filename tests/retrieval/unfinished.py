"""A file as an ingest leaves it half-way, written through the real embedding path."""

from __future__ import annotations

from core.db.models import FileRecord
from core.ingest.pipeline import EmbedJob, FileTarget, embed_files
from core.types import SYSTEM_ACTOR, Chunk


def write_unfinished(engine, kb_name: str, name: str, *texts: str, status: str = "processing") -> str:
    """Its row ``status`` and every chunk's point stored, not yet committed as indexed; its id."""
    kb = engine.get_kb(SYSTEM_ACTOR, kb_name)
    rec = FileRecord(sha256=f"unfinished-{name}", name=name, owner_id=SYSTEM_ACTOR.user_id, kb_id=kb.id,
                     status=status, collection=kb.collection)
    with engine._db.write() as s:
        s.add(rec)
    chunks = [Chunk(text=t, index=i, source_name=name) for i, t in enumerate(texts)]
    job = EmbedJob(FileTarget(rec.id, kb.collection, kb.id), chunks)
    embed_files([job], engine.embedder(), engine._store, batch_size=16, should_cancel=lambda jobs: set(),
                progress=lambda jobs: None)
    assert not job.state, job.error
    return rec.id
