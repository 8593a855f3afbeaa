"""parse → clean → chunk → embed (batched across files) → store.

Pure steps with typed inputs; the service around it owns records, jobs and permissions.
"""

from __future__ import annotations

import logging
import threading
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable

from core.chunking import chunk_document
from core.chunking.context import context_line
from core.embeddings.base import Embedder, TokenStates, token_encoder
from core.errors import CoreError, EmbeddingError
from core.retrieval import bm25
from core.retrieval.late import passage_tokens
from core.settings.model import ChunkingSettings
from core.types import Chunk, ParsedDoc, VectorPoint
from core.vectorstore.base import NOT_READY, READY_KEY, VectorStore

log = logging.getLogger(__name__)

_POINT_NAMESPACE = uuid.UUID("6f1c1f7e-3c1a-4c59-9a43-5b0e2a7e1d11")


@dataclass(frozen=True)
class FileTarget:
    """Where a file's chunks go and what their payload says about it."""

    file_id: str
    collection: str
    kb_id: str | None = None
    chat_id: str | None = None


def point_id(file_id: str, chunk_index: int) -> str:
    # Deterministic: re-running a file overwrites its own points instead of adding new ones.
    return str(uuid.uuid5(_POINT_NAMESPACE, f"{file_id}:{chunk_index}"))


def make_chunks(doc: ParsedDoc, cfg: ChunkingSettings, embedder: Embedder, max_chunks: int | None = None) -> list[Chunk]:
    """``max_chunks``: refuse (TooManyChunks) before splitting a text that cannot fit."""
    count = embedder.count_tokens if cfg.size_unit == "tokens" else len
    chunks = chunk_document(doc, cfg, count, max_chunks)
    if cfg.contextual_text:
        for c in chunks:
            c.context = context_line(c, doc.title)
    return chunks


def chunk_payload(chunk: Chunk, target: FileTarget) -> dict:
    payload = {
        "file_id": target.file_id,
        # The store indexes kb_id and requires it; a chat's files are marked with their chat.
        "kb_id": target.kb_id or (f"chat:{target.chat_id}" if target.chat_id else ""),
        "chat_id": target.chat_id or "",
        "chunk_index": chunk.index,
        "text": chunk.text,
        "heading_path": list(chunk.heading_path),
        "source_name": chunk.source_name,
        "merged_count": chunk.merged_count,
        # invisible to retrieval until its file is committed as indexed (mark_ready)
        READY_KEY: NOT_READY,
    }
    for key in ("page", "page_end", "slide", "start_seconds"):
        value = getattr(chunk, key)
        if value is not None:
            payload[key] = value
    return payload


@dataclass
class EmbedJob:
    """One file's chunks on their way into the store, and how far they got."""

    target: FileTarget
    chunks: list[Chunk]
    embedded: int = 0
    state: str = ""  # "" while going, else failed | cancelled
    error: str = ""
    retryable: bool = False  # failed on something passing (an embedding or store server away)


# While an embedding call runs, the cancel flags of its files are checked this often. One call
# of a full batch took 17 s here (32 chunks of 500 tokens, e5, two busy cores): waiting for it
# was where a cancel's half minute went. Smaller calls would answer sooner but cost e5 much more
# (calls of at most ~1 s: 89 s of CPU instead of 32 s for 200 chunks, one run on a loaded
# machine), so the call keeps its size and is waited for in short steps instead.
_CANCEL_POLL_SECONDS = 0.2


# Callbacks of embed_files take the files of a batch at once, so that a caller tracking one job
# per file reads their cancel flags and writes their progress in one transaction, not one per file.
ShouldCancel = Callable[[list[EmbedJob]], set[int]]  # the id()s of the jobs asked to stop
OnProgress = Callable[[list[EmbedJob]], None]  # files whose chunks a batch has just stored


def _cancel_all(batch_jobs: list[EmbedJob], should_cancel: ShouldCancel) -> bool:
    """Mark the unfinished files of a batch that were asked to stop; whether none is left going."""
    going = [j for j in batch_jobs if not j.state]
    stopped = should_cancel(going) if going else set()
    for j in going:
        if id(j) in stopped:
            j.state, j.error = "cancelled", "cancelled by request"
    return all(j.state for j in batch_jobs)


def _log_abandoned(future: Future) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("an embedding call whose files were all cancelled failed afterwards: %s",
                    type(future.exception()).__name__)


def _in_background(fn: Callable, *args) -> Future:
    """``fn(*args)`` on a daemon thread of its own: a call left running for cancelled files (or
    by a worker whose process is stopping) never holds up the process's exit, as a pool's thread
    would (the interpreter joins those at exit)."""
    future: Future = Future()

    def run() -> None:
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(fn(*args))
            except BaseException as exc:
                future.set_exception(exc)

    threading.Thread(target=run, name="ragdesk-embed", daemon=True).start()
    return future


def _embed_or_cancel(embed: Callable[[list[str]], object], texts: list[str], batch_jobs: list[EmbedJob],
                     should_cancel: ShouldCancel):
    """``embed(texts)``, or None once every file of the batch is cancelled: the call is then left
    to finish on its own thread and its vectors are never stored."""
    future = _in_background(embed, texts)
    while True:
        try:
            return future.result(timeout=_CANCEL_POLL_SECONDS)
        except TimeoutError:
            if _cancel_all(batch_jobs, should_cancel):
                future.add_done_callback(_log_abandoned)
                return None


Embedded = tuple[object, list[TokenStates] | None]  # the vectors, and each text's token states or None


def _embedding_call(embedder: Embedder, store: VectorStore,
                    collections: set[str]) -> tuple[Callable[[list[str]], Embedded], dict[str, bool]]:
    """How a batch is embedded: with token states, from the same model pass, when a collection it
    goes to holds token vectors of the embedder's size (late interaction, core/retrieval/late.py);
    which collections get them."""
    encoder = token_encoder(embedder)
    sizes = {name: store.token_dimension(name) for name in collections}
    wanted = {name: bool(encoder is not None and size and size == encoder.token_dimension) for name, size in sizes.items()}
    if encoder is not None and any(wanted.values()):
        return encoder.embed_documents_with_tokens, wanted
    return (lambda texts: (embedder.embed_documents(texts), None)), wanted


def embed_files(jobs: list[EmbedJob], embedder: Embedder, store: VectorStore, *, batch_size: int,
                should_cancel: ShouldCancel, progress: OnProgress,
                describe: Callable[[BaseException], str] | None = None) -> None:
    """The one embedding path (ingest, reindex, repair): the chunks of many files are embedded in
    shared full batches and upserted. A cancelled file stops within a fraction of a second, even
    in the middle of a long embedding call (``_embed_or_cancel``), and none of its points are
    stored after that; a failed batch fails every unfinished file of ``jobs`` (never raises for
    it). Callers commit or clean up."""
    _embed_queue(jobs, embedder, store, batch_size, should_cancel, progress, describe)  # one call at a time


def _embed_queue(jobs: list[EmbedJob], embedder: Embedder, store: VectorStore,
                 batch_size: int, should_cancel: ShouldCancel, progress: OnProgress,
                 describe: Callable[[BaseException], str] | None) -> None:
    queue = [(j, c) for j in jobs for c in j.chunks]
    while queue:
        _cancel_all(jobs, should_cancel)
        queue = [(j, c) for j, c in queue if not j.state]
        batch, queue = queue[:batch_size], queue[batch_size:]
        if not batch:
            return
        batch_jobs = list({id(j): j for j, _ in batch}.values())
        try:
            embed, token_sizes = _embedding_call(embedder, store, {j.target.collection for j, _ in batch})
            found = _embed_or_cancel(embed, [c.indexed_text for _, c in batch], batch_jobs, should_cancel)
            if found is None:
                continue  # every file of this batch was cancelled meanwhile
            vectors, states = found
            if len(vectors) != len(batch) or (states is not None and len(states) != len(batch)):
                raise EmbeddingError(f"the embedder returned {len(vectors)} vectors for {len(batch)} texts")
            by_collection: dict[str, list[VectorPoint]] = {}
            for n, ((j, c), vec) in enumerate(zip(batch, vectors)):
                if j.state:
                    continue  # cancelled while the batch was embedded: nothing more of it is stored
                tokens = passage_tokens(states[n]) if states is not None and token_sizes[j.target.collection] else None
                by_collection.setdefault(j.target.collection, []).append(VectorPoint(
                    id=point_id(j.target.file_id, c.index), dense=[float(x) for x in vec],
                    sparse=bm25.encode_document(c.indexed_text), payload=chunk_payload(c, j.target), tokens=tokens))
            for name, points in by_collection.items():
                store.upsert(name, points)
        except Exception as exc:  # the whole batch is lost: every unfinished file fails
            if describe is not None:  # e.g. a plain sentence and an error id for a plain user
                message = describe(exc)
            elif isinstance(exc, CoreError):
                message = exc.message
            else:
                log.exception("unexpected error while embedding a batch")
                message = f"unexpected error while embedding ({type(exc).__name__}: {exc})"
            retryable = isinstance(exc, CoreError) and exc.retryable
            for j in jobs:
                if not j.state:
                    j.state, j.error, j.retryable = "failed", message, retryable
            return
        for j, _ in batch:
            j.embedded += 1
        stored = [j for j in batch_jobs if not j.state]
        if stored:
            progress(stored)


GROUP_CHUNKS = 256  # chunks embedded per group: bounded memory, steady progress
GROUP_FILES = 64


def full_group(jobs: list, chunks_of: Callable[[object], int]) -> bool:
    """Whether a group of files is big enough to embed now."""
    return sum(chunks_of(j) for j in jobs) >= GROUP_CHUNKS or len(jobs) >= GROUP_FILES
