"""What answering is given, per question: a typed context built by the engine (never the engine).

``AnswerContext`` holds one settings snapshot and the few functions answering may call: one
search function (the same one ``Engine.search`` uses), the knowledge bases the actor can
read, a file reader, the chat store, access to the chat's own files, a guarded URL fetch and
the normal-mode context providers.

Strict mode gets only ``ctx.knowledge`` (``KnowledgeAccess``): the knowledge bases, the search
function and the settings. It holds no URL fetch, no chat files and no context provider, so
the strict path cannot reach them even by mistake.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal, Protocol

from core.chats.store import ChatStore
from core.answering.prompts import ContextItem
from core.ingest.service import IngestResult
from core.retrieval.search import SearchResult, SearchTarget
from core.settings.model import Settings
from core.types import Actor, ParsedDoc

Tier = Literal["own", "shared", "public", "other"]
TIERS: tuple[Tier, ...] = ("own", "shared", "public", "other")  # the order a #mention is resolved in


class SearchFn(Protocol):
    def __call__(self, query: str, targets: list[SearchTarget], *, mode: str | None = None, top_k: int | None = None,
                 min_score: float | None = None, file_ids: tuple[str, ...] = ()) -> SearchResult: ...


@dataclass(frozen=True)
class KBInfo:
    """A knowledge base the actor can read, and how it relates to them."""

    id: str
    name: str
    owner: str  # the owner's user name, shown when a name is ambiguous
    tier: Tier  # own | shared (with the actor) | public | other (an admin reading a private one)
    collection: str
    embedder_id: str
    sparse_encoder: str = ""
    full_document: bool = False

    def target(self) -> SearchTarget:
        return SearchTarget(self.collection, self.embedder_id, self.name, self.id, self.sparse_encoder)


@dataclass(frozen=True)
class FileInfo:
    """An indexed knowledge-base file the actor can read."""

    id: str
    name: str
    kb_id: str
    kb_name: str
    owner: str
    tier: Tier


@dataclass(frozen=True)
class Document:
    """A text injected whole (full-document knowledge bases and files, small chat attachments)."""

    file_id: str
    name: str
    text: str
    kb_id: str = ""
    origin: str = "kb"  # kb | attachment | url


class ChatFiles(Protocol):
    """The files of one chat's own collection (attachments and fetched pages)."""

    def target(self, chat_id: str) -> tuple[SearchTarget | None, list[str]]:
        """The chat's collection when it holds searchable files, and the names of its files
        embedded with another model (not searched)."""

    def documents(self, chat_id: str, max_chars: int) -> list[Document]:
        """The chat's indexed files whose whole text is at most ``max_chars``."""

    def origins(self, chat_id: str) -> dict[str, str]:
        """file id -> "attachment" or "url", for every file of the chat."""

    def attach_url(self, chat_id: str, url: str) -> IngestResult:
        """Fetch a page (through the URL guard) and index it in the chat's collection."""


class ContextProvider(Protocol):
    """A source of extra context items for a normal-mode answer (web search, for one).

    Providers are listed in ``AnswerContext.providers`` and called in one place, the normal
    flow's ``gather`` step; strict mode has no access to them."""

    name: str

    def items(self, question: str, settings: Settings) -> list[ContextItem]: ...


@dataclass(frozen=True)
class KnowledgeAccess:
    """The knowledge bases and nothing else: all that strict mode receives."""

    actor: Actor
    settings: Settings
    search: SearchFn
    kbs: tuple[KBInfo, ...]  # every knowledge base the actor can read, by name
    files: Callable[[], list[FileInfo]]  # readable indexed files (called only for #file mentions)
    # (question, knowledge base ids) -> the curated answer it matches (core/curated/store.CuratedHit)
    # or None. Curated answers are knowledge-base content: strict mode uses them too.
    curated: Callable[[str, tuple[str, ...]], object | None] = lambda question, kb_ids: None

    def kb(self, kb_id: str) -> KBInfo | None:
        return next((k for k in self.kbs if k.id == kb_id), None)


@dataclass(frozen=True)
class AnswerContext:
    knowledge: KnowledgeAccess
    chats: ChatStore
    chat_files: ChatFiles
    read_file: Callable[[str], Document]  # a readable file by id or name; raises NotFound
    whole_documents: Callable[[tuple[str, ...], tuple[str, ...]], list[Document]]  # (kb ids, file ids)
    fetch_url: Callable[[str], ParsedDoc]  # guarded, nothing stored (temporary chats)
    providers: tuple[ContextProvider, ...] = field(default_factory=tuple)
    # The chat's Web search switch, when on: opens the message's web search (core/answering/web.py).
    # (run, query, earlier messages) -> WebSession | None. Only the normal flow calls it.
    open_web: Callable[..., object] | None = None
    # Fills each citation's ``url`` when its file came from a source (a Drive file's webViewLink).
    link_citations: Callable[[list], None] = lambda citations: None

    @property
    def actor(self) -> Actor:
        return self.knowledge.actor

    @property
    def settings(self) -> Settings:
        return self.knowledge.settings
