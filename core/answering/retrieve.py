"""Retrieval for answering: one call of the context's search function over the scope's
targets, with the mode's threshold and result count, turned into context items; texts that
are injected whole (full-document knowledge bases and files, small chat attachments) become
document items."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.answering.context import Document, SearchFn
from core.answering.prompts import ContextItem
from core.retrieval.search import SearchHit, SearchTarget


@dataclass
class Retrieval:
    items: list[ContextItem]  # above the threshold, best first
    scored: list[dict]  # every scored chunk, for the retrieval-test view
    notices: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    hits: list[SearchHit] = field(default_factory=list)  # the hits behind ``items``, with their channel scores


def hit_item(h: SearchHit, origin: str = "kb") -> ContextItem:
    return ContextItem(text=h.text, source=h.source_name, location=h.location(), score=h.score, chunk_id=h.chunk_id,
                       file_id=h.file_id, kb_id=h.kb_id, heading_path=list(h.heading_path), page=h.page,
                       page_end=h.page_end, slide=h.slide, start_seconds=h.start_seconds, origin=origin)


def scored_row(h: SearchHit, passed: bool, origin: str = "kb") -> dict:
    return {"chunk_id": h.chunk_id, "file_id": h.file_id, "kb_id": h.kb_id, "source_name": h.source_name,
            "location": h.location(), "page": h.page, "page_end": h.page_end, "slide": h.slide,
            "start_seconds": h.start_seconds, "text": h.text, "score": round(h.score, 4), "dense": h.dense,
            "bm25": h.bm25, "fused": h.fused, "rerank": h.rerank, "late": h.late, "passed": passed, "origin": origin}


def retrieve(search: SearchFn, query: str, targets: list[SearchTarget], *, top_k: int, min_score: float,
             file_ids: tuple[str, ...] = (), origins: dict[str, str] | None = None) -> Retrieval:
    """``origins``: file id -> "attachment" / "url" for the chat's files; everything else is "kb"."""
    origins = origins or {}
    result = search(query, targets, top_k=top_k, min_score=min_score, file_ids=tuple(file_ids))
    origin = lambda h: origins.get(h.file_id, "kb")
    scored = ([scored_row(h, True, origin(h)) for h in result.hits]
              + [scored_row(h, False, origin(h)) for h in result.below_threshold])
    return Retrieval([hit_item(h, origin(h)) for h in result.hits], scored, list(result.notices),
                     dict(result.timings_ms), list(result.hits))


def document_item(doc: Document) -> ContextItem:
    # Whole documents were asked for explicitly: they rank above any retrieved chunk.
    return ContextItem(text=doc.text, source=doc.name, score=1.0, file_id=doc.file_id, kb_id=doc.kb_id,
                       kind="document", origin=doc.origin)
