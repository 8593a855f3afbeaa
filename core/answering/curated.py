"""A curated answer fired: the approved text verbatim, cited as the curated answer it is, with
who approved it and when. Checked before any search, in both modes: an approved answer is
knowledge-base content, so strict mode gives it too — no search runs and no model is called."""

from __future__ import annotations

from core.answering.context import KnowledgeAccess
from core.answering.run import AnswerRun
from core.answering.scope import Scope
from core.answering.types import Citation
from core.errors import EmbeddingError


def try_curated(knowledge: KnowledgeAccess, scope: Scope, run: AnswerRun, query: str) -> bool:
    """Answer with a curated answer of the scope's knowledge bases when the question matches one.
    Not when the question picks files (``#file`` or a selection): those ask about the files."""
    if scope.file_ids or not scope.kb_ids:
        return False
    try:
        hit = knowledge.curated(query, scope.kb_ids)
    except EmbeddingError:  # the embedding service is down: the search that follows says so
        return False
    run.mark("curated_ms")
    if hit is None:
        return False
    entry = hit.entry
    run.answer.text = entry.answer
    run.answer.hit, run.answer.llm_called = True, False
    run.answer.curated = {"id": entry.id, "kb_id": entry.kb_id, "kb_name": hit.kb_name, "question": entry.question,
                          "approved_by": entry.approved_by, "approved_at": entry.approved_at,
                          "similarity": hit.similarity}
    run.emit("curated", "a curated answer matches the question", **run.answer.curated)
    run.set_citations([Citation(n=1, chunk_id=entry.id, file_id="", source_name=hit.kb_name, location="",
                                heading_path=[], text=entry.question, score=hit.similarity, kb_id=entry.kb_id,
                                origin="curated", approved_by=entry.approved_by, approved_at=entry.approved_at)])
    run.answer.from_kb = True  # knowledge-base content, though no passage of a file is cited
    run.emit("text", entry.answer)
    run.mark("first_token_ms")
    return True
