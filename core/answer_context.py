"""Builds the typed context answering gets per question (``core/answering/context.py``).

This is the engine's side of the boundary: it knows the database, the vector store and the
blob store, checks the actor on everything it hands over, and gives answering functions bound
to one settings and embedder snapshot. Answering never sees the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from sqlmodel import Session, select

from core.accounts.access import check_file, readable_kbs
from core.chunk_edits.whole import edited_file_ids
from core.chunk_edits.whole import file_text as edited_file_text
from core.chats import attachments as attach
from core.chats.store import ChatStore, chat_collection, chat_files, get_chat
from core.answering.context import (
    AnswerContext,
    ContextProvider,
    Document,
    FileInfo,
    KBInfo,
    KnowledgeAccess,
    Tier,
)
from core.answering.references import mention_names
from core.db.models import FileRecord, KBShare, KnowledgeBase, User
from core.errors import CoreError, NotFound
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.service import IngestResult
from core.metadata.conditions import MetaCondition
from core.metadata.payload import inside_filter
from core.parsers.base import ParseContext
from core.retrieval.search import SearchTarget
from core.searcher import Searcher
from core.types import Actor, ParsedDoc
from core.sources.links import link_citations


def kb_infos(session: Session, actor: Actor) -> tuple[KBInfo, ...]:
    kbs = readable_kbs(session, actor)
    shared = set(session.exec(select(KBShare.kb_id).where(KBShare.user_id == actor.user_id)))
    owner_ids = {k.owner_id for k in kbs}
    owners = {u.id: u.name for u in session.exec(select(User).where(User.id.in_(owner_ids)))} if owner_ids else {}
    return tuple(KBInfo(kb.id, kb.name, owners.get(kb.owner_id, kb.owner_id), _tier(kb, actor, shared),
                        kb.collection, kb.embedder_id, kb.sparse_encoder, kb.full_document) for kb in kbs)


def reference_names(parts: EngineParts, actor: Actor, only_kbs: tuple[str, ...] | None = None) -> frozenset[str]:
    """The names a #mention may mean for this actor (``only_kbs``: within these knowledge bases, as
    ``answer_context`` confines them): read before the filter is, so ``#a=b.md`` names the file."""
    with parts.db.read() as s:
        kbs = kb_infos(s, actor)
    if only_kbs is not None:
        kbs = tuple(k for k in kbs if k.id in only_kbs)
    return mention_names(kbs, _files(parts, kbs))


def _tier(kb: KnowledgeBase, actor: Actor, shared: set[str]) -> Tier:
    if kb.owner_id == actor.user_id:
        return "own"
    if kb.id in shared:
        return "shared"
    return "public" if kb.visibility == "public" else "other"


def answer_context(parts: EngineParts, snap: Snapshot, searcher: Searcher, actor: Actor,
                   providers: tuple[ContextProvider, ...] = (), only_kbs: tuple[str, ...] | None = None) -> AnswerContext:
    """``only_kbs``: the answer sees these of the actor's knowledge bases and no others (an
    assistant's: a #mention cannot reach past them)."""
    with parts.db.read() as s:
        kbs = kb_infos(s, actor)
    if only_kbs is not None:
        kbs = tuple(k for k in kbs if k.id in only_kbs)
    # A metadata filter (searcher.where) is part of the scope: curated answers carry no metadata, so
    # none is given under one, and whole documents are only those of files inside it.
    curated = (lambda question, kb_ids: None) if searcher.where is not None else (
        lambda question, kb_ids: _curated(parts, snap, kbs, question, kb_ids))
    knowledge = KnowledgeAccess(actor, snap.settings, searcher, kbs, lambda: _files(parts, kbs), curated=curated)
    parsing = ParseContext(settings=snap.settings.parsing)

    def fetch(url: str) -> ParsedDoc:
        from core.parsers.url import (
            fetch_url,  # lazy: pulls the HTTP and HTML stacks; goes through the URL guard
        )

        return fetch_url(url, parsing)

    return AnswerContext(
        knowledge=knowledge,
        chats=ChatStore(parts.db, actor),
        chat_files=ChatFileAccess(parts, snap, actor, fetch),
        read_file=lambda ref: _read_file(parts, actor, knowledge, ref),
        whole_documents=lambda kb_ids, file_ids: _whole_documents(parts, kb_ids, file_ids, searcher.where),
        fetch_url=fetch,
        providers=providers,
        link_citations=lambda citations: link_citations(parts.db, citations),
    )


def _curated(parts: EngineParts, snap: Snapshot, kbs: tuple[KBInfo, ...], question: str, kb_ids: tuple[str, ...]):
    """The curated answer of these knowledge bases (only the actor's readable ones) the question matches."""
    from core.curated.store import find_match

    cfg = snap.settings.curated
    readable = {k.id for k in kbs}
    wanted = tuple(k for k in kb_ids if k in readable)
    return find_match(parts.db, snap.embedder, wanted, question, cfg.min_similarity) if cfg.enabled else None


def _files(parts: EngineParts, kbs: tuple[KBInfo, ...]) -> list[FileInfo]:
    by_id = {k.id: k for k in kbs}
    if not by_id:
        return []
    with parts.db.read() as s:
        rows = s.exec(select(FileRecord).where(FileRecord.kb_id.in_(list(by_id)), FileRecord.status == "indexed")).all()
    return [FileInfo(f.id, f.name, f.kb_id, by_id[f.kb_id].name, by_id[f.kb_id].owner, by_id[f.kb_id].tier) for f in rows]


def _read_file(parts: EngineParts, actor: Actor, knowledge: KnowledgeAccess, ref: str) -> Document:
    """A readable file by id (chat files: their chat's owner only), or a knowledge-base file by
    name, resolved in the #mention order; two of the best tier is an error naming both."""
    with parts.db.read() as s:
        rec = s.get(FileRecord, ref)
        if rec is not None:
            rec = check_file(s, actor, rec, ref)
    if rec is None:
        low = ref.lower()
        named = [f for f in knowledge.files() if low in (f.name.lower(), PurePosixPath(f.name).stem.lower())]
        for tier in ("own", "shared", "public", "other"):
            best = [f for f in named if f.tier == tier]
            if len(best) > 1:
                raise CoreError(f"several files are named '{ref}': "
                                + "; ".join(f"{f.id} in '{f.kb_name}' ({f.owner})" for f in best) + "; use an id")
            if best:
                with parts.db.read() as s:
                    rec = s.get(FileRecord, best[0].id)
                break
    if rec is None:
        raise NotFound(f"file '{ref}' not found")
    doc = parts.blobs.get_parsed(rec.id)
    if doc is None:
        raise CoreError(f"no parsed text is stored for '{rec.name}'")
    text = doc.text
    if rec.kb_id and edited_file_ids(parts.db, [rec.id]):  # hand edits (core/chunk_edits/) read as indexed
        text = edited_file_text(parts.store, rec.collection, rec.id, text)
    return Document(rec.id, rec.name, text, rec.kb_id or "", _origin(rec))


def _whole_documents(parts: EngineParts, kb_ids: tuple[str, ...], file_ids: tuple[str, ...],
                     where: Mapping[str, tuple[MetaCondition, ...]] | None = None) -> list[Document]:
    """Whole texts of files in full-document knowledge bases and of full-document files
    ("Using Entire Document"), within the given (already readable) knowledge bases and the
    metadata filter's files."""
    if not kb_ids:
        return []
    with parts.db.read() as s:
        whole_kbs = set(s.exec(select(KnowledgeBase.id).where(KnowledgeBase.id.in_(kb_ids), KnowledgeBase.full_document == True)))
        q = select(FileRecord).where(FileRecord.status == "indexed", FileRecord.kb_id.in_(kb_ids),
                                     (FileRecord.kb_id.in_(whole_kbs)) | (FileRecord.full_document == True))
        files = list(s.exec(q))
    if file_ids:
        files = [f for f in files if f.id in file_ids]
    if where is not None:
        files = inside_filter(parts.db, files, where)
    docs = []
    edited = edited_file_ids(parts.db, [f.id for f in files])  # hand edits (core/chunk_edits/) read as indexed
    for f in files:
        doc = parts.blobs.get_parsed(f.id)
        text = edited_file_text(parts.store, f.collection, f.id, doc.text) if doc and f.id in edited else (doc and doc.text)
        if text and text.strip():
            docs.append(Document(f.id, f.name, text, f.kb_id or "", "kb"))
    return docs


def _origin(rec: FileRecord) -> str:
    if rec.kb_id:
        return "kb"
    return "url" if rec.name.startswith(("http://", "https://")) else "attachment"


class ChatFileAccess:
    """The files of the actor's own chats, for one question (one snapshot)."""

    def __init__(self, parts: EngineParts, snap: Snapshot, actor: Actor, fetch):
        self._parts, self._snap, self._actor, self._fetch = parts, snap, actor, fetch
        self._cache: dict[str, list[FileRecord]] = {}

    def _indexed(self, chat_id: str) -> list[FileRecord]:
        if chat_id not in self._cache:
            get_chat(self._parts.db, self._actor, chat_id)  # the actor's own chat, or NotFound
            self._cache[chat_id] = [f for f in chat_files(self._parts.db, chat_id) if f.status == "indexed"]
        return self._cache[chat_id]

    def _current(self, chat_id: str) -> tuple[list[FileRecord], list[str]]:
        current = self._snap.embedder.id
        files = self._indexed(chat_id)
        stale = [f for f in files if (f.meta or {}).get("embedder_id", current) != current]
        return [f for f in files if f not in stale], [f.name for f in stale]

    def target(self, chat_id: str) -> tuple[SearchTarget | None, list[str]]:
        """The chat's collection, and the names of its files embedded with another model (not
        searched; answering says so in the question's language)."""
        files, stale = self._current(chat_id)
        if stale or not files or not self._parts.store.collection_exists(chat_collection(chat_id)):
            return None, stale
        return SearchTarget(chat_collection(chat_id), self._snap.embedder.id, "this chat's files"), stale

    def documents(self, chat_id: str, max_chars: int) -> list[Document]:
        files, stale = self._current(chat_id)
        if stale:
            return []
        docs = []
        for f in files:
            if f.char_count and f.char_count <= max_chars:
                doc = self._parts.blobs.get_parsed(f.id)
                if doc is not None and doc.text.strip():
                    docs.append(Document(f.id, f.name, doc.text, "", _origin(f)))
        return docs

    def origins(self, chat_id: str) -> dict[str, str]:
        return {f.id: _origin(f) for f in self._indexed(chat_id)}

    def attach_url(self, chat_id: str, url: str) -> IngestResult:
        self._cache.pop(chat_id, None)
        try:
            doc = self._fetch(url)
        except CoreError as exc:
            return IngestResult(url, "failed", error=exc.message)
        return attach.attach_page(self._parts, self._snap, self._actor, chat_id, url, doc)
