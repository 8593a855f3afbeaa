"""Curated answers of a knowledge base: stored, listed, changed, matched. Access as for files:
anyone who can read the knowledge base sees its curated answers (they answer that person's
questions anyway); its owner or an admin adds, changes and deletes them — the owner already
decides what the knowledge base says through its files, and the approval names who did it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from sqlmodel import select

from core.accounts.access import resolve_kb
from core.curated.match import judge, normalized, similarities
from core.db.database import Database
from core.db.models import CuratedAnswer, KnowledgeBase, utcnow
from core.embeddings.base import Embedder
from core.errors import AlreadyExists, InvalidInput, NotFound, PermissionDenied
from core.names import printable
from core.types import Actor

MAX_QUESTION_CHARS = 2_000
MAX_ANSWER_CHARS = 20_000


@dataclass
class CuratedEntry:
    id: str
    kb_id: str
    question: str
    answer: str
    approved_by: str
    approved_at: str  # ISO 8601, UTC


@dataclass
class CuratedHit:
    """The curated answer a question matched (answering turns it into the answer and its citation)."""

    entry: CuratedEntry
    kb_name: str
    similarity: float
    reason: str


def entry_of(row: CuratedAnswer) -> CuratedEntry:
    return CuratedEntry(row.id, row.kb_id, row.question, row.answer, row.approved_by, iso(row.approved_at))


def iso(moment: datetime) -> str:
    if moment.tzinfo is None:  # SQLite gives naive datetimes back; they were stored as UTC
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds")


def approver_name(actor: Actor) -> str:
    return actor.name or actor.user_id


def check_texts(question: str, answer: str) -> tuple[str, str]:
    question, answer = (question or "").strip(), (answer or "").strip()
    if not question:
        raise InvalidInput("the curated question is empty")
    if not answer:
        raise InvalidInput("the curated answer is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInput(f"the curated question is longer than {MAX_QUESTION_CHARS} characters")
    if len(answer) > MAX_ANSWER_CHARS:
        raise InvalidInput(f"the curated answer is longer than {MAX_ANSWER_CHARS} characters")
    return question, answer


def approval(actor: Actor, approved_by: str | None, approved_at: datetime | None) -> tuple[str, datetime]:
    """Who approved it and when: the actor, now — or, for an admin bringing approvals over from
    elsewhere (a CSV export), the names and times given. Nobody else may sign for another."""
    name = (approved_by or "").strip() or approver_name(actor)
    if name != approver_name(actor) and not actor.is_admin:
        raise PermissionDenied("only an admin may record an approval by someone else")
    if approved_at is not None and not actor.is_admin:
        raise PermissionDenied("only an admin may record an earlier approval time")
    return name, approved_at or utcnow()


def vector_of(embedder: Embedder, question: str) -> list[float]:
    # Both sides are questions: embedded as queries (e5's "query: " prefix on both).
    return [round(float(x), 6) for x in embedder.embed_query(question)]


def vectors_of(embedder: Embedder, questions: list[str]) -> list[list[float]]:
    """Many questions in one batch where the embedder takes one (``embed_queries``), else one by one."""
    batch = getattr(embedder, "embed_queries", None)
    matrix = batch(questions) if batch is not None else [embedder.embed_query(q) for q in questions]
    return [[round(float(x), 6) for x in row] for row in matrix]


def list_curated(db: Database, actor: Actor, kb_ref: str) -> list[CuratedEntry]:
    with db.read() as s:
        kb = resolve_kb(s, actor, kb_ref)
        rows = s.exec(select(CuratedAnswer).where(CuratedAnswer.kb_id == kb.id).order_by(CuratedAnswer.approved_at)).all()
    return [entry_of(r) for r in rows]


def _same_question(s, kb_id: str, question: str, skip_id: str = "") -> CuratedAnswer | None:
    key = normalized(question)
    rows = s.exec(select(CuratedAnswer).where(CuratedAnswer.kb_id == kb_id)).all()
    return next((r for r in rows if r.id != skip_id and normalized(r.question) == key), None)


def add_curated(db: Database, embedder: Embedder, actor: Actor, kb_ref: str, question: str, answer: str, *,
                approved_by: str | None = None, approved_at: datetime | None = None) -> CuratedEntry:
    question, answer = check_texts(question, answer)
    with db.read() as s:
        resolve_kb(s, actor, kb_ref, write=True)  # refused before the (slow) embedding
    name, moment = approval(actor, approved_by, approved_at)
    vector = vector_of(embedder, question)
    with db.write() as s:
        kb = resolve_kb(s, actor, kb_ref, write=True)
        if _same_question(s, kb.id, question) is not None:
            raise AlreadyExists(f"'{printable(kb.name)}' already has a curated answer to this question")
        row = CuratedAnswer(kb_id=kb.id, question=question, answer=answer, approved_by=name, approved_at=moment,
                            created_by=actor.user_id, embedder_id=embedder.id, vector=vector)
        s.add(row)
    return entry_of(row)


def _writable_row(s, actor: Actor, entry_id: str) -> CuratedAnswer:
    row = s.get(CuratedAnswer, entry_id)
    if row is None:
        raise NotFound(f"curated answer '{printable(entry_id)}' not found")
    try:
        resolve_kb(s, actor, row.kb_id, write=True)
    except NotFound:  # a knowledge base the actor cannot read: its entries do not exist for them
        raise NotFound(f"curated answer '{printable(entry_id)}' not found") from None
    return row


def update_curated(db: Database, embedder: Embedder, actor: Actor, entry_id: str, *, question: str | None = None,
                   answer: str | None = None) -> CuratedEntry:
    """A changed text is approved anew, by whoever changed it."""
    with db.read() as s:
        old = _writable_row(s, actor, entry_id)
    question, answer = check_texts(old.question if question is None else question, old.answer if answer is None else answer)
    vector = vector_of(embedder, question) if question != old.question else None
    with db.write() as s:
        row = _writable_row(s, actor, entry_id)
        if _same_question(s, row.kb_id, question, skip_id=row.id) is not None:
            raise AlreadyExists("this knowledge base already has a curated answer to that question")
        if vector is not None:
            row.question, row.vector, row.embedder_id = question, vector, embedder.id
        row.answer, row.approved_by, row.approved_at = answer, approver_name(actor), utcnow()
        row.updated_at = row.approved_at
        s.add(row)
    return entry_of(row)


def delete_curated(db: Database, actor: Actor, entry_id: str, kb_ref: str | None = None) -> None:
    with db.write() as s:
        row = _writable_row(s, actor, entry_id)
        if kb_ref is not None and resolve_kb(s, actor, kb_ref).id != row.kb_id:
            raise NotFound(f"curated answer '{printable(entry_id)}' not found in knowledge base '{printable(kb_ref)}'")
        s.delete(row)


def find_match(db: Database, embedder: Embedder, kb_ids: tuple[str, ...], question: str,
               threshold: float) -> CuratedHit | None:
    """The best curated answer of these (already readable) knowledge bases for the question, or
    None. Questions embedded by another model than the one in force are embedded again first."""
    if not kb_ids:
        return None
    with db.read() as s:
        rows = list(s.exec(select(CuratedAnswer).where(CuratedAnswer.kb_id.in_(list(kb_ids)))))
        if not rows:
            return None
        names = {k.id: k.name for k in s.exec(select(KnowledgeBase).where(KnowledgeBase.id.in_(list(kb_ids))))}
    stale = [r for r in rows if r.embedder_id != embedder.id or not r.vector]
    if stale:
        _embed_again(db, embedder, stale)
    scores = similarities(embedder.embed_query(question), [r.vector for r in rows])
    best: CuratedHit | None = None
    for row, score in sorted(zip(rows, scores.tolist()), key=lambda p: -p[1]):
        verdict = judge(question, row.question, float(score), threshold)
        if verdict.matched and (best is None or verdict.similarity > best.similarity):
            best = CuratedHit(entry_of(row), names.get(row.kb_id, ""), round(verdict.similarity, 4), verdict.reason)
    return best


def _embed_again(db: Database, embedder: Embedder, rows: list[CuratedAnswer]) -> None:
    for row in rows:
        row.vector, row.embedder_id = vector_of(embedder, row.question), embedder.id
    with db.write() as s:
        for row in rows:
            fresh = s.get(CuratedAnswer, row.id)
            if fresh is not None and fresh.question == row.question:
                fresh.vector, fresh.embedder_id = row.vector, row.embedder_id
                s.add(fresh)
