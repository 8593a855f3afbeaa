"""Retrieval for answering: the chosen knowledge bases plus the chat's own files, with the
mode's threshold and result count, turned into context items; full-document knowledge
bases and files are injected whole instead of as chunks (normal mode)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlmodel import select

from core.answering.chats import chat_collection, chat_files
from core.answering.prompts import ContextItem
from core.answering.query_cache import CachedQueries
from core.db.models import FileRecord, KnowledgeBase
from core.retrieval import search as search_mod
from core.types import Actor

if TYPE_CHECKING:
    from core.engine import Engine


@dataclass
class Retrieval:
    items: list[ContextItem]  # above the threshold, best first
    scored: list[dict]  # every scored chunk, for the retrieval-test view
    notices: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)


def hit_item(h: search_mod.SearchHit) -> ContextItem:
    return ContextItem(text=h.text, source=h.source_name, location=h.location(), score=h.score, chunk_id=h.chunk_id,
                       file_id=h.file_id, kb_id=h.kb_id, heading_path=list(h.heading_path), page=h.page,
                       slide=h.slide, start_seconds=h.start_seconds)


def scored_row(h: search_mod.SearchHit, passed: bool) -> dict:
    return {"chunk_id": h.chunk_id, "file_id": h.file_id, "kb_id": h.kb_id, "source_name": h.source_name,
            "location": h.location(), "text": h.text, "score": round(h.score, 4), "dense": h.dense, "bm25": h.bm25,
            "fused": h.fused, "rerank": h.rerank, "passed": passed}


def chat_target(engine: "Engine", chat_id: str | None, notices: list[str]) -> list[search_mod.SearchTarget]:
    """The chat's collection, when it holds files embedded with the current embedder."""
    if not chat_id or not engine.store.collection_exists(chat_collection(chat_id)):
        return []
    current = engine.embedder().id
    files = [f for f in chat_files(engine.parts, chat_id) if f.status == "indexed"]
    if not files:
        return []
    stale = [f.name for f in files if f.meta.get("embedder_id", current) != current]
    if stale:
        notices.append("files attached to this chat were embedded with another model and are not searched; "
                       "upload them again: " + ", ".join(stale))
        return []
    return [search_mod.SearchTarget(chat_collection(chat_id), current, "this chat's files")]


def retrieve(engine: "Engine", actor: Actor, query: str, *, kbs: list[str] | None, chat_id: str | None,
             top_k: int, min_score: float, file_ids: tuple[str, ...] = ()) -> Retrieval:
    notices: list[str] = []
    cfg = engine.settings().retrieval
    targets = engine.search_targets(actor, kbs) + chat_target(engine, chat_id, notices)
    for file_id in file_ids:
        engine.get_file(actor, file_id)
    result = search_mod.search(
        store=engine.store, db=engine.db, embedder=CachedQueries(engine.embedder()),
        reranker=engine.reranker() if cfg.mode == "hybrid+rerank" else None, cfg=cfg, targets=targets,
        query=query, top_k=top_k, min_score=min_score, file_ids=tuple(file_ids),
    )
    scored = [scored_row(h, True) for h in result.hits] + [scored_row(h, False) for h in result.below_threshold]
    return Retrieval([hit_item(h) for h in result.hits], scored, notices + result.notices, dict(result.timings_ms))


def full_document_items(engine: "Engine", actor: Actor, kbs: list[str] | None,
                        file_ids: tuple[str, ...] = ()) -> tuple[list[ContextItem], set[str]]:
    """Whole texts of files in full-document knowledge bases and of full-document files
    ("Using Entire Document"), and the ids of those files (kept out of chunk retrieval)."""
    kb_ids = [t.kb_id for t in engine.search_targets(actor, kbs) if t.kb_id]
    if not kb_ids and not file_ids:
        return [], set()
    with engine.db.read() as s:
        whole_kbs = set(s.exec(select(KnowledgeBase.id).where(KnowledgeBase.id.in_(kb_ids), KnowledgeBase.full_document == True)))  # noqa: E712
        q = select(FileRecord).where(FileRecord.status == "indexed",
                                     (FileRecord.kb_id.in_(kb_ids)) & ((FileRecord.kb_id.in_(whole_kbs)) | (FileRecord.full_document == True)))  # noqa: E712
        files = list(s.exec(q))
    if file_ids:
        files = [f for f in files if f.id in file_ids]
    items = []
    for f in files:
        doc = engine.blobs.get_parsed(f.id)
        if doc is None or not doc.text.strip():
            continue
        # Whole documents were asked for explicitly: they rank above any retrieved chunk.
        items.append(ContextItem(text=doc.text, source=f.name, score=1.0, file_id=f.id, kb_id=f.kb_id or "", kind="document"))
    return items, {f.id for f in files}
