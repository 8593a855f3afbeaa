"""Chunk editing (core/chunk_edits/): a file's chunks viewed, edited, disabled, enabled and added
by hand, with keywords the lexical channel sees and an edit history. Viewing needs read access to
the file's knowledge base; every change needs write access (its owner or an admin)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.chunk_edits import cli_text, edits
from core.chunk_edits.types import ChunkHistoryEntry, ChunkListing, ChunkView
from core.services.cli_groups import CHUNKS
from core.services.declare import Arg, Cli, Http, operation
from core.services.runtime import Runtime
from core.types import Actor

TAG = "chunks"
ChunkIndex = Annotated[int, Field(ge=0)]
ChunkText = Annotated[str, Field(min_length=1, max_length=edits.MAX_TEXT)]
Keywords = Annotated[list[str], Field(max_length=edits.MAX_KEYWORDS)]
_CHUNK = "/api/v1/files/{file_id}/chunks/{chunk_index}"
_FILE = {"file_id": Arg(help="the file's id (python -m core files list --kb KB)")}
_INDEX = {**_FILE, "chunk_index": Arg(metavar="index", help="the chunk's index (chunks list)")}
_TEXT = {"text": Arg(flag="--text", help="the chunk's new text", from_file="--text-file",
                     from_file_help="read the new text from this UTF-8 file",
                     missing="give the new chunk's text: --text TEXT or --text-file PATH"),
         "keywords": Arg(parse=cli_text.keywords,
                         help="comma-separated keywords the lexical (BM25) search sees; '' clears them")}


class ChunkEditService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    @operation(handoff=True, http=Http("GET", "/api/v1/files/{file_id}/chunks", out=ChunkListing, tag=TAG,
                                       summary="A file's chunks in order: the file's own, edited, added by hand "
                                               "and disabled ones, with their keywords"),
               cli=Cli("list", group=CHUNKS, help="the file's chunks in order, edited, added and disabled ones marked",
                       args=_FILE, human=cli_text.listing_text))
    def list_chunks(self, actor: Actor, file_id: str) -> ChunkListing:
        return edits.list_chunks(self._rt.parts, actor, file_id)

    @operation(handoff=True, http=Http("POST", _CHUNK, out=ChunkView, tag=TAG,
                                       example={"file_id": "0", "chunk_index": 0, "text": "new text"},
                                       summary="Edit a chunk's text and/or keywords: re-embedded and re-indexed at once "
                                               "(the knowledge base's owner or an admin)"),
               cli=Cli("edit", group=CHUNKS, help="replace a chunk's text and/or keywords (re-embedded at once)",
                       args={**_INDEX, **_TEXT}, human=cli_text.chunk_line))
    def edit_chunk(self, actor: Actor, file_id: str, chunk_index: ChunkIndex, text: ChunkText | None = None,
                   keywords: Keywords | None = None) -> ChunkView:
        return edits.edit_chunk(self._rt.parts, self._rt.snapshot(), actor, file_id, chunk_index, text, keywords)

    @operation(handoff=True, http=Http("POST", _CHUNK + "/disable", out=ChunkView, tag=TAG,
                                       example={"file_id": "0", "chunk_index": 0},
                                       summary="Disable a chunk: no search or answer uses it until it is enabled"),
               cli=Cli("disable", group=CHUNKS, help="keep a chunk out of every search and answer", args=_INDEX,
                       human=cli_text.chunk_line))
    def disable_chunk(self, actor: Actor, file_id: str, chunk_index: ChunkIndex) -> ChunkView:
        return edits.set_chunk_disabled(self._rt.parts, self._rt.snapshot(), actor, file_id, chunk_index, True)

    @operation(handoff=True, http=Http("POST", _CHUNK + "/enable", out=ChunkView, tag=TAG,
                                       example={"file_id": "0", "chunk_index": 0},
                                       summary="Enable a disabled chunk again (re-embedded with its current text)"),
               cli=Cli("enable", group=CHUNKS, help="bring a disabled chunk back", args=_INDEX,
                       human=cli_text.chunk_line))
    def enable_chunk(self, actor: Actor, file_id: str, chunk_index: ChunkIndex) -> ChunkView:
        return edits.set_chunk_disabled(self._rt.parts, self._rt.snapshot(), actor, file_id, chunk_index, False)

    @operation(handoff=True, http=Http("POST", "/api/v1/files/{file_id}/chunks", out=ChunkView, tag=TAG,
                                       status_code=201, example={"file_id": "0", "text": "a passage"},
                                       summary="Add a chunk by hand to a file (after its own chunks)"),
               cli=Cli("add", group=CHUNKS, help="add a chunk by hand to the file", args={**_FILE, **_TEXT},
                       human=cli_text.chunk_line))
    def add_chunk(self, actor: Actor, file_id: str, text: ChunkText, keywords: Keywords | None = None) -> ChunkView:
        return edits.add_chunk(self._rt.parts, self._rt.snapshot(), actor, file_id, text, keywords)

    @operation(handoff=True, http=Http("GET", "/api/v1/files/{file_id}/chunks/history", out=list[ChunkHistoryEntry],
                                       tag=TAG, summary="The chunk edit history of a file, newest first: who, when, "
                                                        "before and after (the knowledge base's owner or an admin)"),
               cli=Cli("history", group=CHUNKS, help="who changed which chunk, when, before and after", args=_FILE,
                       human=cli_text.history_text))
    def chunk_history(self, actor: Actor, file_id: str) -> list[ChunkHistoryEntry]:
        return edits.history(self._rt.parts, actor, file_id)
