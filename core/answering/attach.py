"""Files and fetched URLs attached to a chat, indexed into the chat's own collection."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from core.answering.chats import chat_collection, get_chat
from core.db.models import FileRecord
from core.errors import CoreError, ReindexNeeded
from core.ingest.service import IngestResult, Upload, ingest_one
from core.parsers.base import ParseContext
from core.types import Actor

if TYPE_CHECKING:
    from core.engine import Engine


def _ensure_collection(engine: "Engine", chat_id: str) -> str:
    name = chat_collection(chat_id)
    dim = engine.embedder().dimension
    if not engine.store.collection_exists(name):
        engine.store.create_collection(name, dim)
    elif engine.store.dimension(name) != dim:
        raise ReindexNeeded("this chat's files were embedded with another model; start a new chat to attach files")
    return name


def _mark_embedder(engine: "Engine", result: IngestResult) -> None:
    # Recorded so a later embedder change is noticed (chat files are never reindexed).
    if result.status != "indexed" or not result.file_id:
        return
    with engine.db.write() as s:
        rec = s.get(FileRecord, result.file_id)
        rec.meta = dict(rec.meta or {}, embedder_id=engine.embedder().id)
        s.add(rec)


def attach_uploads(engine: "Engine", actor: Actor, chat_id: str, uploads: list[Upload]) -> list[IngestResult]:
    get_chat(engine.parts, actor, chat_id)
    collection = _ensure_collection(engine, chat_id)
    results = []
    for upload in uploads:
        result = ingest_one(engine.parts, actor, upload, collection=collection, chat_id=chat_id)
        _mark_embedder(engine, result)
        results.append(result)
    return results


def attach_url(engine: "Engine", actor: Actor, chat_id: str, url: str) -> IngestResult:
    """Fetch a URL (a YouTube link gives its transcript), parse it, index it in the chat."""
    from core.parsers.url import fetch_url  # lazy: pulls the HTML and transcript libraries

    get_chat(engine.parts, actor, chat_id)
    try:
        doc = fetch_url(url, ParseContext(settings=engine.settings().parsing))
    except CoreError as exc:
        return IngestResult(url, "failed", error=exc.message)
    collection = _ensure_collection(engine, chat_id)
    # The document is already parsed: hand it to the ingest pipeline as if parsing gave it.
    parts = dataclasses.replace(engine.parts, parse=lambda data, name, ctx: doc)
    result = ingest_one(parts, actor, _url_upload(url, doc.text), collection=collection, chat_id=chat_id)
    _mark_embedder(engine, result)
    return result


def _url_upload(url: str, text: str) -> Upload:
    return Upload(url, text.encode("utf-8"))
