"""The engine's working parts, handed to the services that need them (built once, in core.engine)."""

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


@dataclass
class EngineParts:
    db: Database
    store: VectorStore
    blobs: BlobStore
    settings: Callable[[], Settings]  # always the version in force (hot reload)
    embedder: Callable[[], Embedder]  # the embedder the current settings name
    parse: Callable[[bytes, str, ParseContext], ParsedDoc]
