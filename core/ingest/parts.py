"""What the ingest, reindex, repair and chat-file services are handed (built once, in core.engine).

``EngineParts`` is the storage they work on; ``Snapshot`` is the settings and embedder of one
operation (an ingest batch, a reindex, a repair run, a question), taken once at its start so a
settings change saved meanwhile cannot mix two models' vectors in one operation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from core.db.database import Database
from core.embeddings.base import Embedder
from core.ingest.blobs import BlobStore
from core.parsers.base import ParseContext
from core.settings.model import Settings
from core.types import ParsedDoc
from core.vectorstore.base import VectorStore

ParseFn = Callable[[bytes, str, ParseContext], ParsedDoc]


@dataclass(frozen=True)
class Snapshot:
    settings: Settings
    embedder: Embedder


@dataclass(frozen=True)
class EngineParts:
    db: Database
    store: VectorStore
    blobs: BlobStore
    parse: ParseFn
    # Background work that starts by itself (a scheduled sync, a web search, the doctor) takes its
    # one snapshot here, at its start; an operation started by the engine is handed its snapshot.
    snapshot: Callable[[], Snapshot]
