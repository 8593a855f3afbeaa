"""Who may do what. Every engine call goes through these checks, whatever the UI shows.

- Admins may do everything.
- A knowledge base is readable by its owner, by users it is shared with (visibility
  "shared" + a share row) and by everyone when public; only its owner (or an admin) may
  change it, add or delete its files.
- A chat file (an attachment or a page fetched into a chat) belongs to its chat's owner only,
  admins included: chats are private, and a file of someone else's chat is "not found".
"""

from __future__ import annotations

import unicodedata

from sqlmodel import Session, or_, select

from core.db.models import Chat, FileRecord, KBShare, KnowledgeBase
from core.errors import NotFound, PermissionDenied
from core.names import printable
from core.types import Actor


def can_read_kb(session: Session, actor: Actor, kb: KnowledgeBase) -> bool:
    if actor.is_admin or kb.owner_id == actor.user_id or kb.visibility == "public":
        return True
    if kb.visibility == "shared":
        return session.get(KBShare, (kb.id, actor.user_id)) is not None
    return False


def can_write_kb(actor: Actor, kb: KnowledgeBase) -> bool:
    return actor.is_admin or kb.owner_id == actor.user_id


def readable_kbs(session: Session, actor: Actor) -> list[KnowledgeBase]:
    query = select(KnowledgeBase).order_by(KnowledgeBase.name)
    if not actor.is_admin:
        shared_ids = select(KBShare.kb_id).where(KBShare.user_id == actor.user_id)
        query = query.where(
            or_(
                KnowledgeBase.owner_id == actor.user_id,
                KnowledgeBase.visibility == "public",
                (KnowledgeBase.visibility == "shared") & KnowledgeBase.id.in_(shared_ids),
            )
        )
    return list(session.exec(query))


def resolve_kb(session: Session, actor: Actor, ref: str, *, write: bool = False) -> KnowledgeBase:
    """Find a knowledge base by id or by name among those the actor can read.

    An unknown and a forbidden knowledge base give the same "not found" for reading, so
    names of other users' private knowledge bases do not leak.
    """
    kb = session.get(KnowledgeBase, ref)
    if kb is None or not can_read_kb(session, actor, kb):
        name = unicodedata.normalize("NFC", ref.strip())  # names are stored NFC (core/names.py)
        matches = [k for k in readable_kbs(session, actor) if k.name == name]
        if not matches:
            raise NotFound(f"knowledge base '{printable(ref)}' not found")
        if len(matches) > 1:
            own = [k for k in matches if k.owner_id == actor.user_id]
            if len(own) != 1:
                raise NotFound(f"several knowledge bases are named '{ref}'; use its id")
            matches = own
        kb = matches[0]
    if write and not can_write_kb(actor, kb):
        raise PermissionDenied(f"only the owner of knowledge base '{kb.name}' or an admin may change it")
    return kb


def check_file(session: Session, actor: Actor, file: FileRecord | None, ref: str, *, write: bool = False) -> FileRecord:
    if file is None:
        raise NotFound(f"file '{ref}' not found")
    if not file.kb_id:  # a chat's file: its chat owner's alone, checked before the admin rule
        chat = session.get(Chat, file.chat_id) if file.chat_id else None
        owner = chat.owner_id if chat is not None else file.owner_id
        if owner != actor.user_id:
            raise NotFound(f"file '{ref}' not found")
        return file
    if actor.is_admin:
        return file
    kb = session.get(KnowledgeBase, file.kb_id)
    if kb is None or not can_read_kb(session, actor, kb):
        raise NotFound(f"file '{ref}' not found")
    if write and not can_write_kb(actor, kb):
        raise PermissionDenied(f"only the owner of knowledge base '{kb.name}' or an admin may change its files")
    return file


def require_admin(actor: Actor, what: str) -> None:
    if not actor.is_admin:
        raise PermissionDenied(f"only an admin may {what}")
