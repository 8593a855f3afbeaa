"""Knowledge bases: create, list, rename, share, delete (with all their vectors and files)."""

from __future__ import annotations

from sqlmodel import delete, func, select

from core.accounts.access import readable_kbs, resolve_kb
from core.db.database import Database
from core.db.models import CuratedAnswer, FileRecord, KBShare, KnowledgeBase, User, utcnow
from core.errors import AlreadyExists, InvalidInput, NotFound
from core.ingest.parts import EngineParts
from core.ingest.service import remove_file_everywhere
from core.names import clean_name, clean_text, printable, user_name_key
from core.types import Actor
from core.vectorstore.base import VectorStore, kb_collection_prefix

VISIBILITIES = ("private", "shared", "public")
MAX_NAME_CHARS = 120
MAX_DESCRIPTION_CHARS = 2000  # shown in every list of knowledge bases (and /v1/models' neighbours)


def _check_name(name: str) -> str:
    """A name every route can address: ``/api/v1/kbs/{kb}`` takes one path segment, so a '/' (even
    sent as %2F, which the server decodes before routing) or a name of dots (which clients fold
    away as '.' and '..') would make a knowledge base no route reaches."""
    name = clean_name(name, "knowledge base", max_chars=MAX_NAME_CHARS)  # NFC; control and bidi characters refused
    if "/" in name:
        raise InvalidInput(f"the knowledge base name '{printable(name)}' contains '/': a name is one part of an "
                           "address (/api/v1/kbs/NAME); use another character, e.g. '-'")
    if set(name) == {"."}:
        raise InvalidInput(f"the knowledge base name '{name}' is only dots, which addresses fold away; "
                           "add a letter or digit")
    return name


def _check_description(description: str) -> str:
    return clean_text(description, "knowledge base description", MAX_DESCRIPTION_CHARS)


def create_kb(db: Database, actor: Actor, name: str, description: str = "", visibility: str = "private") -> KnowledgeBase:
    name = _check_name(name)
    description = _check_description(description)
    if visibility not in VISIBILITIES:
        raise InvalidInput(f"visibility must be one of {', '.join(VISIBILITIES)}")
    with db.write() as s:
        clash = s.exec(select(KnowledgeBase).where(KnowledgeBase.owner_id == actor.user_id, KnowledgeBase.name == name)).first()
        if clash:
            raise AlreadyExists(f"you already have a knowledge base named '{name}'")
        kb = KnowledgeBase(name=name, description=description, owner_id=actor.user_id, visibility=visibility)
        s.add(kb)
    return kb


def list_kbs(db: Database, actor: Actor) -> list[KnowledgeBase]:
    with db.read() as s:
        return readable_kbs(s, actor)


def get_kb(db: Database, actor: Actor, ref: str) -> KnowledgeBase:
    with db.read() as s:
        return resolve_kb(s, actor, ref)


def kb_stats(db: Database, store: VectorStore, actor: Actor, ref: str) -> dict:
    """File and chunk counts from the database, vector count from the store."""
    kb = get_kb(db, actor, ref)
    with db.read() as s:
        rows = s.exec(select(FileRecord.status, func.count(), func.sum(FileRecord.chunk_count))
                      .where(FileRecord.kb_id == kb.id).group_by(FileRecord.status)).all()
    by_status = {status: int(n) for status, n, _ in rows}
    chunks = sum(int(c or 0) for status, _, c in rows if status == "indexed")
    vectors = store.count(kb.collection) if kb.collection and store.collection_exists(kb.collection) else 0
    return {"files": sum(by_status.values()), "by_status": by_status, "chunks": chunks, "vectors": vectors}


def update_kb(db: Database, actor: Actor, ref: str, *, name: str | None = None, description: str | None = None,
              visibility: str | None = None, full_document: bool | None = None) -> KnowledgeBase:
    with db.write() as s:
        kb = resolve_kb(s, actor, ref, write=True)
        if name is not None:
            name = _check_name(name)
        if name is not None and name != kb.name:
            clash = s.exec(select(KnowledgeBase).where(KnowledgeBase.owner_id == kb.owner_id,
                                                       KnowledgeBase.name == name)).first()
            if clash:
                raise AlreadyExists(f"a knowledge base named '{name}' already exists")
            kb.name = name
        if description is not None:
            kb.description = _check_description(description)
        if visibility is not None:
            if visibility not in VISIBILITIES:
                raise InvalidInput(f"visibility must be one of {', '.join(VISIBILITIES)}")
            kb.visibility = visibility
        if full_document is not None:
            kb.full_document = full_document
        kb.updated_at = utcnow()
        s.add(kb)
    return kb


def share_kb(db: Database, actor: Actor, ref: str, user_names: list[str]) -> list[str]:
    """Replace the share list with these users; visibility becomes 'shared' when the list is not empty."""
    with db.write() as s:
        kb = resolve_kb(s, actor, ref, write=True)
        by_key: dict[str, list[User]] = {}
        for user in s.exec(select(User)).all():
            by_key.setdefault(user_name_key(user.name), []).append(user)
        users = []
        for uname in user_names:
            # compared as core/names.py does: case, width and Latin/Cyrillic look-alikes do not matter
            matches = by_key.get(user_name_key(uname.strip()), [])
            exact = [u for u in matches if u.name == uname.strip()]
            if not matches:
                raise NotFound(f"user '{printable(uname)}' not found")
            if len(matches) > 1 and len(exact) != 1:
                raise InvalidInput(f"several users have names that look like '{printable(uname)}' "
                                   f"({', '.join(printable(u.name) for u in matches)}); type the exact name")
            users.append(exact[0] if exact else matches[0])
        s.exec(delete(KBShare).where(KBShare.kb_id == kb.id))
        for user in users:
            s.add(KBShare(kb_id=kb.id, user_id=user.id))
        if users and kb.visibility == "private":
            kb.visibility = "shared"
            s.add(kb)
    return [u.name for u in users]


def share_candidates(db: Database, actor: Actor, ref: str) -> list[str]:
    """Names alone (no ids, roles or e-mails) of the enabled accounts a knowledge base can be shared
    with: for its owner or an admin, who may share it; anyone else is refused like share_kb."""
    with db.read() as s:
        kb = resolve_kb(s, actor, ref, write=True)
        return list(s.exec(select(User.name).where(User.id != kb.owner_id, User.disabled == False)  # noqa: E712
                           .order_by(User.name)))


def shared_with(db: Database, actor: Actor, ref: str) -> list[str]:
    with db.read() as s:
        kb = resolve_kb(s, actor, ref)
        return list(s.exec(select(User.name).join(KBShare, KBShare.user_id == User.id)
                           .where(KBShare.kb_id == kb.id).order_by(User.name)))


def sharing(db: Database, actor: Actor, ref: str) -> dict:
    """A knowledge base's name, visibility and the users it is shared with, by name."""
    kb = get_kb(db, actor, ref)
    return {"kb": kb.name, "visibility": kb.visibility, "shared_with": sorted(shared_with(db, actor, kb.id))}


def add_shares(db: Database, actor: Actor, ref: str, user_names: list[str]) -> dict:
    """Share with these users too (the list is read, then replaced: share_kb); its sharing after."""
    current = shared_with(db, actor, ref)
    known = {user_name_key(n) for n in current}
    share_kb(db, actor, ref, current + [n for n in user_names if user_name_key(n) not in known])
    return sharing(db, actor, ref)


def remove_shares(db: Database, actor: Actor, ref: str, user_names: list[str]) -> dict:
    """Stop sharing with these users, each of whom it must be shared with; its sharing after."""
    current = shared_with(db, actor, ref)
    drop = {user_name_key(n) for n in user_names}
    missing = sorted(drop - {user_name_key(n) for n in current})
    if missing:
        raise InvalidInput(f"knowledge base '{ref}' is not shared with: {', '.join(missing)}")
    share_kb(db, actor, ref, [n for n in current if user_name_key(n) not in drop])
    return sharing(db, actor, ref)


def delete_kb(parts: EngineParts, actor: Actor, ref: str) -> None:
    with parts.db.read() as s:
        kb = resolve_kb(s, actor, ref, write=True)
        files = s.exec(select(FileRecord).where(FileRecord.kb_id == kb.id)).all()
    for name in parts.store.list_collections():
        if name.startswith(kb_collection_prefix(kb.id)):  # the serving index and any unfinished reindex
            parts.store.drop_collection(name)
    for rec in files:
        rec.collection = ""  # its collection is gone already
        remove_file_everywhere(parts, rec)
    from core.sources.service import forget_kb  # lazy: sources import the ingest machinery

    forget_kb(parts, kb.id)
    with parts.db.write() as s:
        s.exec(delete(KBShare).where(KBShare.kb_id == kb.id))
        s.exec(delete(CuratedAnswer).where(CuratedAnswer.kb_id == kb.id))
        row = s.get(KnowledgeBase, kb.id)
        if row is not None:
            s.delete(row)
