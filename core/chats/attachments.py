"""Files and fetched pages attached to a chat, indexed into the chat's own collection.

Each call takes one settings and embedder snapshot; every file records the embedder it was
embedded with (chat collections are never reindexed, so a later model change is noticed)."""

from __future__ import annotations

from core.chats.store import chat_collection, get_chat
from core.errors import ReindexNeeded
from core.ingest.batch import ingest_many
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.service import IngestResult, Upload
from core.types import Actor, ParsedDoc


def _ensure_collection(parts: EngineParts, snap: Snapshot, chat_id: str) -> str:
    name = chat_collection(chat_id)
    dim = snap.embedder.dimension
    if not parts.store.collection_exists(name):
        parts.store.create_collection(name, dim)
    elif parts.store.dimension(name) != dim:
        raise ReindexNeeded("this chat's files were embedded with another model; start a new chat to attach files")
    return name


def attach_uploads(parts: EngineParts, snap: Snapshot, actor: Actor, chat_id: str,
                   uploads: list[Upload]) -> list[IngestResult]:
    get_chat(parts.db, actor, chat_id)
    collection = _ensure_collection(parts, snap, chat_id)
    return ingest_many(parts, snap, actor, uploads, collection=collection, chat_id=chat_id)


def attach_page(parts: EngineParts, snap: Snapshot, actor: Actor, chat_id: str, url: str,
                doc: ParsedDoc) -> IngestResult:
    """Index a page already fetched (through the URL guard) and parsed into the chat."""
    get_chat(parts.db, actor, chat_id)
    collection = _ensure_collection(parts, snap, chat_id)
    [result] = ingest_many(parts, snap, actor, [Upload(url, doc.text.encode("utf-8"))], collection=collection,
                           chat_id=chat_id, parsed=doc)
    return result
