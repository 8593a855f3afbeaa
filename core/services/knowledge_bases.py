"""Knowledge bases: create, list, rename, share, per-base chunking, index, delete (core/knowledge.py)."""

from __future__ import annotations

import time
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from core import knowledge
from core.services.outputs import Deleted, KbDetail, KbOut, KbSharing, Shared
from core.db.models import KnowledgeBase
from core.demo import DemoResult
from core.services.cli_groups import KB as KB_GROUP
from core.services.declare import Arg, Cli, Http, Remote, operation
from core.services.runtime import Runtime
from core.types import SYSTEM_ACTOR, Actor


TAG = "knowledge bases"
MAX_SHARED_USERS = 1000  # users named in one share list
KB = {"kb": "ref"}  # the API names a knowledge base "kb" (its id or name)


class KbRow(BaseModel):
    """A knowledge base as the CLI prints it: the local admin's view, its collection's name included
    (for the store's own tools), which the API's KbOut leaves out."""

    model_config = ConfigDict(from_attributes=True)
    id: str
    name: str
    visibility: str
    embedder: str = Field(validation_alias="embedder_id")
    dimension: int
    collection: str
    description: str


class KbCounted(KbRow):
    files: int
    by_status: dict[str, int]
    chunks: int
    vectors: int


_NAME = Arg(metavar="name")  # the CLI has always called a knowledge-base reference its name
_SHARES = {"ref": Arg(metavar="kb"), "user_names": Arg(metavar="users")}
SharedUsers = Annotated[list[str], Field(max_length=MAX_SHARED_USERS)]


def _sharing_line(r: dict) -> str:
    return f"{r['kb']} ({r['visibility']}): " + (", ".join(r["shared_with"]) or "shared with nobody")


def _kb_line(r: dict) -> str:
    return (f"{r['name']:<30} {r['files']:>5} files {r['chunks']:>7} chunks {r['vectors']:>7} vectors  "
            f"{r['embedder'] or '-'}")


def _load_demo_queued(engine, args: dict):
    """The demo handed to the process holding the store: its files go through that process's job
    queue (progress on its pages, nothing long on the hand-off's thread); the CLI waits for them."""
    from core.demo import fill_demo

    return fill_demo(engine.runtime.db, SYSTEM_ACTOR,
                     lambda kb_id, uploads: engine.submit_ingest(SYSTEM_ACTOR, kb_id, uploads).result())


class KnowledgeBaseService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    # create, list, rename, delete: the CLI's kb group lists them in this order (core/cli/derived.py)
    @operation(handoff=True, http=Http("POST", "/api/v1/kbs", out=KbOut, tag=TAG, status_code=201,
                                       summary="Create a knowledge base (you own it)", example={"name": "handbook"}),
               cli=Cli("create", group=KB_GROUP, out=KbRow, help="create a knowledge base (you own it)",
                       args={"visibility": Arg(choices=knowledge.VISIBILITIES)},
                       human=lambda r: f"created knowledge base '{r['name']}' ({r['id']})"))
    def create_kb(self, actor: Actor, name: str, description: str = "", visibility: str = "private") -> KnowledgeBase:
        """Create a knowledge base (you own it): private, shared with users you name, or public."""
        return knowledge.create_kb(self._rt.db, actor, name, description, visibility)

    @operation(handoff=True, http=Http("GET", "/api/v1/kbs", out=list[KbOut], tag=TAG, mcp="list_knowledge_bases",
                                       summary="The knowledge bases you may read"))
    def list_kbs(self, actor: Actor) -> list[KnowledgeBase]:
        return knowledge.list_kbs(self._rt.db, actor)

    @operation()
    def get_kb(self, actor: Actor, ref: str) -> KnowledgeBase:
        return knowledge.get_kb(self._rt.db, actor, ref)

    @operation(handoff=True, cli=Cli("list", group=KB_GROUP, out=list[KbCounted],
                                     help="the knowledge bases with their file, chunk and vector counts",
                                     human=lambda rs: "\n".join(map(_kb_line, rs)) or "no knowledge bases"))
    def kbs_counted(self, actor: Actor) -> list[dict]:
        """The knowledge bases you may read, each with its file, chunk and vector counts."""
        return [{**kb.model_dump(), **knowledge.kb_stats(self._rt.db, self._rt.store, actor, kb.id)}
                for kb in knowledge.list_kbs(self._rt.db, actor)]

    @operation(handoff=True)
    def kb_stats(self, actor: Actor, ref: str) -> dict:
        return knowledge.kb_stats(self._rt.db, self._rt.store, actor, ref)

    @operation(http=Http("GET", "/api/v1/kbs/{kb}", name="get_kb", rename=KB, out=KbDetail, tag=TAG,
                         summary="One knowledge base with its file, chunk and vector counts"))
    def kb_overview(self, actor: Actor, ref: str) -> dict:
        """A knowledge base's row and its counts in one (files, chunks, vectors)."""
        kb = knowledge.get_kb(self._rt.db, actor, ref)
        return {**kb.model_dump(), **knowledge.kb_stats(self._rt.db, self._rt.store, actor, kb.id)}

    @operation(handoff=Remote(run=_load_demo_queued))
    def load_demo(self, actor: Actor) -> DemoResult:
        """The bundled demo knowledge base, created or found, with the demo files indexed into it."""
        from core.demo import fill_demo
        from core.ingest import service as ingest_mod

        return fill_demo(self._rt.db, actor, lambda kb_id, uploads: ingest_mod.ingest(
            self._rt.parts, self._rt.snapshot(), actor, kb_id, uploads))

    @operation(handoff=True, cli=Cli("rename", group=KB_GROUP, params=("ref", "name"), out=KbRow,
                                     help="rename a knowledge base (its owner or an admin)",
                                     args={"ref": _NAME, "name": Arg(required=True, metavar="new_name")},
                                     human=lambda r: f"renamed to '{r['name']}'"))
    def update_kb(self, actor: Actor, ref: str, *, name: str | None = None, description: str | None = None,
                  visibility: str | None = None, full_document: bool | None = None) -> KnowledgeBase:
        return knowledge.update_kb(self._rt.db, actor, ref, name=name, description=description,
                                   visibility=visibility, full_document=full_document)

    @operation(http=Http("POST", "/api/v1/kbs/{kb}/share", rename={**KB, "users": "user_names"}, out=Shared, tag=TAG,
                         reply=lambda asked, names: {"kb": asked["kb"], "shared_with": names}, example={"users": []},
                         summary="Share a knowledge base with these users (replaces the list; owner or admin)"))
    def share_kb(self, actor: Actor, ref: str, user_names: SharedUsers) -> list[str]:
        return knowledge.share_kb(self._rt.db, actor, ref, user_names)

    @operation()
    def share_candidates(self, actor: Actor, ref: str) -> list[str]:
        """Who a knowledge base can be shared with: names only, for its owner or an admin."""
        return knowledge.share_candidates(self._rt.db, actor, ref)

    @operation()
    def shared_with(self, actor: Actor, ref: str) -> list[str]:
        return knowledge.shared_with(self._rt.db, actor, ref)

    @operation()
    def set_kb_chunking(self, actor: Actor, ref: str, override: dict | None) -> KnowledgeBase:
        """A knowledge base's own chunk size / overlap / min-size target ({} = the global ones);
        a reindex applies it to the files already there."""
        from core.ingest.kb_chunking import set_kb_chunking

        return set_kb_chunking(self._rt.parts, actor, ref, override)

    @operation(access="open", why="the chunking of a knowledge-base row the caller already holds")
    def kb_chunking(self, kb: KnowledgeBase):
        """The chunking settings this knowledge base's next ingest or reindex uses."""
        from core.ingest.kb_chunking import effective_chunking
        from core.settings.store import masked
        from core.settings.model import Settings

        return effective_chunking(Settings.model_validate(masked(self._rt.settings())), kb.chunking_override)

    # Neither handed off nor over HTTP: the embedded engine holds the process's GIL for the whole
    # build (minutes at a million chunks), so it runs in a process of its own with the dashboard stopped.
    @operation(access="admin", admin_does="build a knowledge base's search index")
    def index_kb(self, actor: Actor, ref: str) -> dict:
        """Build the HNSW index (and int8 copies) of a knowledge base's vectors in the embedded store:
        offline maintenance for large bases, whose dense search otherwise scans every vector.
        Scores do not move (rescored with the stored vectors); dense neighbours become approximate."""
        kb = knowledge.get_kb(self._rt.db, actor, ref)
        optimize = getattr(self._rt.store, "optimize", None)
        if optimize is None:  # a Qdrant server builds its indexes in the background
            return {"kb": kb.name, "indexed": False, "seconds": 0.0,
                    "note": "the Qdrant server indexes in the background; nothing to do"}
        started = time.monotonic()
        # A base with no file yet has no collection: nothing to index.
        has_vectors = bool(kb.collection) and self._rt.store.collection_exists(kb.collection)
        changed = optimize(kb.collection) if has_vectors else False
        return {"kb": kb.name, "indexed": changed, "seconds": round(time.monotonic() - started, 1),
                "note": "index built" if changed else
                "nothing to do: already indexed, or small enough that search scans it exactly"}

    @operation(handoff=True, http=Http("DELETE", "/api/v1/kbs/{kb}", rename=KB, out=Deleted, tag=TAG,
                                       reply=lambda asked, _: {"deleted": asked["kb"]},
                                       summary="Delete a knowledge base, its files and every vector (owner or admin)"),
               cli=Cli("delete", group=KB_GROUP, args={"ref": _NAME}, out=Deleted,
                       help="delete a knowledge base, its files and every vector",
                       reply=lambda asked, _: {"deleted": asked["ref"]},
                       human=lambda r: f"deleted knowledge base '{r['deleted']}' and its vectors"))
    def delete_kb(self, actor: Actor, ref: str) -> None:
        """Delete a knowledge base, its files and every vector (its owner or an admin)."""
        knowledge.delete_kb(self._rt.parts, actor, ref)

    # share, unshare, shared: the CLI's kb group lists them after delete (no docstrings: their help is
    # the hand-written commands'); each prints the knowledge base's sharing after it
    @operation(handoff=True, cli=Cli("share", group=KB_GROUP, help="share with these users (added to the list)",
                                     args=_SHARES, human=_sharing_line))
    def add_kb_shares(self, actor: Actor, ref: str, user_names: SharedUsers) -> KbSharing:
        # these users added to the share list (its owner or an admin)
        return KbSharing.model_validate(knowledge.add_shares(self._rt.db, actor, ref, user_names))

    @operation(handoff=True, cli=Cli("unshare", group=KB_GROUP, help="stop sharing with these users",
                                     args=_SHARES, human=_sharing_line))
    def remove_kb_shares(self, actor: Actor, ref: str, user_names: SharedUsers) -> KbSharing:
        # these users taken off the share list, each of whom it must be on (its owner or an admin)
        return KbSharing.model_validate(knowledge.remove_shares(self._rt.db, actor, ref, user_names))

    @operation(handoff=True, cli=Cli("shared", group=KB_GROUP, help="who a knowledge base is shared with",
                                     args={"ref": _SHARES["ref"]}, human=_sharing_line))
    def kb_sharing(self, actor: Actor, ref: str) -> KbSharing:
        return KbSharing.model_validate(knowledge.sharing(self._rt.db, actor, ref))
