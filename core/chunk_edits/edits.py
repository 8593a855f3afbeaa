"""The work of the chunk-editing operations: view a file's chunks, edit one (text, keywords),
disable, enable, add one by hand, read the history.

Who may edit is who may write the knowledge base (``check_file(..., write=True)``); viewing needs
read access. The vector store is written first and the database after it: an edit the store
refused leaves no row claiming it. A disabled chunk's point is deleted from the store, so no
search channel, mode or filter can return it; its row keeps what is needed to write it back.
The file's ``chunk_count`` is the number of its points, so the doctor keeps agreeing with it.
"""

from __future__ import annotations

from sqlmodel import select

from core.accounts.access import check_file
from core.chunk_edits.models import ChunkEdit, ChunkEditLog
from core.chunk_edits.points import KEYWORDS_KEY, ChunkWrite, base_payload, write_chunks
from core.chunk_edits.types import ADDED_BASE, ChunkHistoryEntry, ChunkListing, ChunkView
from core.db.models import FileRecord, KnowledgeBase, utcnow
from core.errors import InvalidInput, NotFound, ReindexNeeded
from core.ingest.kb_chunking import settings_for_kb
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.pipeline import point_id
from core.metadata import payload as metadata_payload
from core.types import Actor

MAX_TEXT = 20_000  # characters of one chunk's text
MAX_KEYWORDS = 50
MAX_KEYWORD = 100
NOTICE_KEY = "chunk_edits_notice"  # in FileRecord.meta: edits dropped at a reindex, said to the user


def clean_keywords(keywords: list[str] | None) -> list[str]:
    out: list[str] = []
    for k in keywords or []:
        k = " ".join(str(k).split())
        if not k:
            continue
        if len(k) > MAX_KEYWORD:
            raise InvalidInput(f"a keyword may have at most {MAX_KEYWORD} characters")
        if k not in out:
            out.append(k)
    if len(out) > MAX_KEYWORDS:
        raise InvalidInput(f"at most {MAX_KEYWORDS} keywords per chunk")
    return out


def clean_text(text: str) -> str:
    text = text.strip()
    if not text:
        raise InvalidInput("a chunk's text may not be empty (disable the chunk instead)")
    if len(text) > MAX_TEXT:
        raise InvalidInput(f"a chunk's text may have at most {MAX_TEXT} characters")
    return text


def _file(parts: EngineParts, actor: Actor, file_id: str, *, write: bool) -> tuple[FileRecord, KnowledgeBase]:
    with parts.db.read() as s:
        rec = check_file(s, actor, s.get(FileRecord, file_id), file_id, write=write)
        kb = s.get(KnowledgeBase, rec.kb_id) if rec.kb_id else None
    if kb is None:
        raise InvalidInput("only the chunks of a knowledge base's files can be edited, not a chat's")
    if write and (rec.status != "indexed" or not parts.store.collection_exists(rec.collection)):
        raise InvalidInput(f"file '{rec.name}' is {rec.status}, not indexed: its chunks can be edited once it is")
    return rec, kb


def _edits(parts: EngineParts, file_id: str) -> dict[int, ChunkEdit]:
    with parts.db.read() as s:
        return {e.chunk_index: e for e in s.exec(select(ChunkEdit).where(ChunkEdit.file_id == file_id))}


def _state(text: str, keywords: list[str], disabled: bool) -> dict:
    return {"text": text, "keywords": list(keywords), "disabled": disabled}


def _view(index: int, file_id: str, payload: dict, edit: ChunkEdit | None) -> ChunkView:
    view = ChunkView(chunk_index=index, chunk_id=point_id(file_id, index), text=str(payload.get("text", "")),
                     keywords=list(payload.get(KEYWORDS_KEY) or []), heading_path=list(payload.get("heading_path") or []),
                     page=payload.get("page"))
    if edit is not None:
        view.text = edit.text if edit.text is not None else (edit.base_text or view.text)
        view.keywords, view.disabled = list(edit.keywords or []), edit.disabled
        view.state = "added" if edit.kind == "added" else ("edited" if edit.text is not None or edit.keywords else "original")
        view.original_text = edit.base_text if edit.kind == "edited" and edit.text is not None else None
        view.updated_by, view.updated_at = edit.updated_by, edit.updated_at
    return view


def list_chunks(parts: EngineParts, actor: Actor, file_id: str) -> ChunkListing:
    rec, _ = _file(parts, actor, file_id, write=False)
    points = []
    if rec.status == "indexed" and parts.store.collection_exists(rec.collection):
        points = parts.store.scroll_file(rec.collection, rec.id)
    edits = _edits(parts, rec.id)
    views = {int(p.payload.get("chunk_index", 0)): _view(int(p.payload.get("chunk_index", 0)), rec.id, p.payload,
                                                          edits.get(int(p.payload.get("chunk_index", 0))))
             for p in points}
    for index, edit in edits.items():
        if index not in views and edit.disabled:  # out of the store, still listed
            views[index] = _view(index, rec.id, edit.payload or {}, edit)
    return ChunkListing(file_id=rec.id, file_name=rec.name, status=rec.status,
                        chunks=[views[i] for i in sorted(views)], notice=str((rec.meta or {}).get(NOTICE_KEY, "")))


class _Editor:
    """One write operation on one file's chunks: the file checked for the actor, the embedder
    checked against the knowledge base's index."""

    def __init__(self, parts: EngineParts, snap: Snapshot, actor: Actor, file_id: str):
        self.parts, self.snap, self.actor = parts, snap, actor
        self.rec, self.kb = _file(parts, actor, file_id, write=True)
        if self.kb.embedder_id and self.kb.embedder_id != snap.embedder.id:
            raise ReindexNeeded(f"knowledge base '{self.kb.name}' was indexed with {self.kb.embedder_id}, and "
                                f"{snap.embedder.id} is in force: reindex it before editing its chunks")

    def current(self, index: int) -> tuple[ChunkEdit | None, dict | None]:
        """The chunk's edit row and its point's payload (None when the chunk has no point)."""
        edit = _edits(self.parts, self.rec.id).get(index)
        found = [p for p in self.parts.store.scroll_file(self.rec.collection, self.rec.id)
                 if int(p.payload.get("chunk_index", -1)) == index]
        payload = found[0].payload if found else None
        if edit is None and payload is None:
            raise NotFound(f"file '{self.rec.name}' has no chunk {index}")
        return edit, payload

    def write(self, writes: list[ChunkWrite]) -> None:
        settings = settings_for_kb(self.snap.settings, self.kb)
        doc = self.parts.blobs.get_parsed(self.rec.id) if settings.chunking.contextual_text else None
        write_chunks(self.parts.store, self.snap.embedder, self.rec.collection, self.rec.id, writes,
                     title=doc.title if doc is not None else None, contextual=settings.chunking.contextual_text,
                     ready=bool(self.rec.searchable))
        # the file's metadata as it is now (an edit row keeps the payload of its first edit)
        metadata_payload.refresh(self.parts.store, self.parts.db, [self.rec.id])

    def commit(self, edit: ChunkEdit, action: str, before: dict | None, after: dict | None) -> None:
        """The edit row (dropped when nothing is left of it), its history entry, the file's count."""
        count = self.parts.store.count(self.rec.collection, self.rec.id)
        with self.parts.db.write() as s:
            # the chunk's row as it is now (another edit may have made it since this one read it)
            row = s.exec(select(ChunkEdit).where(ChunkEdit.file_id == edit.file_id,
                                                 ChunkEdit.chunk_index == edit.chunk_index)).first()
            trivial = edit.kind == "edited" and edit.text is None and not edit.keywords and not edit.disabled
            if trivial:
                if row is not None:
                    s.delete(row)
            else:
                edit.updated_by, edit.updated_at = self.actor.user_id, utcnow()
                if row is None:
                    s.add(edit)
                else:
                    for name, value in edit.model_dump(exclude={"id"}).items():
                        setattr(row, name, value)
                    s.add(row)
            s.add(ChunkEditLog(file_id=self.rec.id, kb_id=self.kb.id, chunk_index=edit.chunk_index, action=action,
                               actor_id=self.actor.user_id, actor_name=self.actor.name, before=before, after=after))
            rec = s.get(FileRecord, self.rec.id)
            if rec is not None:
                rec.chunk_count, rec.updated_at = count, utcnow()
                s.add(rec)


def _row_for(editor: _Editor, index: int, edit: ChunkEdit | None, payload: dict | None) -> ChunkEdit:
    if edit is not None:
        return ChunkEdit(**edit.model_dump())  # a detached copy; ``commit`` writes it onto the row
    return ChunkEdit(file_id=editor.rec.id, kb_id=editor.kb.id, chunk_index=index, kind="edited",
                     base_text=str(payload.get("text", "")), payload=base_payload(payload))


def _text_of(edit: ChunkEdit) -> str:
    return edit.text if edit.text is not None else edit.base_text


def _listed(parts: EngineParts, actor: Actor, file_id: str, index: int) -> ChunkView:
    for view in list_chunks(parts, actor, file_id).chunks:
        if view.chunk_index == index:
            return view
    raise NotFound(f"chunk {index} is gone")


def edit_chunk(parts: EngineParts, snap: Snapshot, actor: Actor, file_id: str, chunk_index: int,
               text: str | None = None, keywords: list[str] | None = None) -> ChunkView:
    if text is None and keywords is None:
        raise InvalidInput("give the chunk a new text, new keywords, or both")
    editor = _Editor(parts, snap, actor, file_id)
    edit, payload = editor.current(chunk_index)
    row = _row_for(editor, chunk_index, edit, payload)
    if edit is None:  # the file's own chunk: its keywords, if any, are those of its point
        row.keywords = list(payload.get(KEYWORDS_KEY) or [])
    before = _state(_text_of(row), row.keywords, row.disabled)
    if text is not None:
        new = clean_text(text)
        row.text = None if (row.kind == "edited" and new == row.base_text) else new
        if row.kind == "added":
            row.base_text = new  # an added chunk has no file passage: its text is its own
    if keywords is not None:
        row.keywords = clean_keywords(keywords)
    after = _state(_text_of(row), row.keywords, row.disabled)
    if not row.disabled:  # a disabled chunk's new text is written when it is enabled
        editor.write([ChunkWrite(chunk_index, _text_of(row), row.keywords, row.payload or {}, row.kind)])
    editor.commit(row, "edit", before, after)
    return _listed(parts, actor, file_id, chunk_index)


def set_chunk_disabled(parts: EngineParts, snap: Snapshot, actor: Actor, file_id: str, chunk_index: int,
                       disabled: bool) -> ChunkView:
    editor = _Editor(parts, snap, actor, file_id)
    edit, payload = editor.current(chunk_index)
    row = _row_for(editor, chunk_index, edit, payload)
    if edit is None:
        row.keywords = list(payload.get(KEYWORDS_KEY) or [])
    if row.disabled == disabled:
        return _listed(parts, actor, file_id, chunk_index)  # already so: nothing changes, nothing logged
    before = _state(_text_of(row), row.keywords, row.disabled)
    if disabled:
        parts.store.delete_points(editor.rec.collection, [point_id(editor.rec.id, chunk_index)])
    else:
        editor.write([ChunkWrite(chunk_index, _text_of(row), row.keywords, row.payload or {}, row.kind)])
    row.disabled = disabled
    editor.commit(row, "disable" if disabled else "enable", before, _state(_text_of(row), row.keywords, disabled))
    return _listed(parts, actor, file_id, chunk_index)


def add_chunk(parts: EngineParts, snap: Snapshot, actor: Actor, file_id: str, text: str,
              keywords: list[str] | None = None) -> ChunkView:
    editor = _Editor(parts, snap, actor, file_id)
    text, words = clean_text(text), clean_keywords(keywords)
    with parts.db.read() as s:
        taken = s.exec(select(ChunkEdit.chunk_index).where(ChunkEdit.file_id == editor.rec.id,
                                                           ChunkEdit.chunk_index >= ADDED_BASE)).all()
    index = max([ADDED_BASE - 1, *taken]) + 1
    base = {"kb_id": editor.kb.id, "chat_id": "", "source_name": editor.rec.name, "heading_path": [],
            "merged_count": 1}
    row = ChunkEdit(file_id=editor.rec.id, kb_id=editor.kb.id, chunk_index=index, kind="added", base_text=text,
                    keywords=words, payload=base)
    editor.write([ChunkWrite(index, text, words, base, "added")])
    editor.commit(row, "add", None, _state(text, words, False))
    return _listed(parts, actor, file_id, index)


def history(parts: EngineParts, actor: Actor, file_id: str, limit: int = 200) -> list[ChunkHistoryEntry]:
    """Newest first. Write access: it names who edited."""
    rec, _ = _file(parts, actor, file_id, write=False)
    with parts.db.read() as s:
        check_file(s, actor, s.get(FileRecord, file_id), file_id, write=True)
        rows = s.exec(select(ChunkEditLog).where(ChunkEditLog.file_id == rec.id)
                      .order_by(ChunkEditLog.at.desc()).limit(limit)).all()
    return [ChunkHistoryEntry.model_validate(r, from_attributes=True) for r in rows]
