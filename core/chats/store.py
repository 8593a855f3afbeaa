"""Chats and their messages. A chat belongs to its owner alone (admins included: chats are
private). Files attached to a chat live in the chat's own collection (``ragdesk_chat_<id>``): reindex
never touches them, and deleting the chat removes them and their vectors.
"""

from __future__ import annotations

from sqlmodel import col, or_, select

from core.db.database import Database
from core.db.models import Chat, FileRecord, Message, utcnow
from core.errors import NotFound
from core.ingest.parts import EngineParts
from core.ingest.service import remove_file_everywhere
from core.llm.base import ChatMessage
from core.types import Actor
from core.vectorstore.base import chat_collection as collection_for_chat

TITLE_CHARS = 80


def chat_collection(chat_id: str) -> str:
    return collection_for_chat(chat_id)


def create_chat(db: Database, actor: Actor, title: str = "") -> Chat:
    chat = Chat(owner_id=actor.user_id, title=title.strip()[:TITLE_CHARS])
    with db.write() as s:
        s.add(chat)
    return chat


def get_chat(db: Database, actor: Actor, chat_id: str) -> Chat:
    with db.read() as s:
        chat = s.get(Chat, chat_id)
    # Someone else's chat and a missing one look the same, so ids do not leak.
    if chat is None or chat.owner_id != actor.user_id:
        raise NotFound(f"chat '{chat_id}' not found")
    return chat


def list_chats(db: Database, actor: Actor, query: str = "") -> list[Chat]:
    """The actor's chats, newest first; ``query`` matches titles and message text."""
    with db.read() as s:
        q = select(Chat).where(Chat.owner_id == actor.user_id)
        if query.strip():
            pattern = f"%{query.strip()}%"
            in_messages = select(Message.chat_id).where(col(Message.content).ilike(pattern))
            q = q.where(or_(col(Chat.title).ilike(pattern), col(Chat.id).in_(in_messages)))
        return list(s.exec(q.order_by(col(Chat.updated_at).desc())))


def chat_messages(db: Database, actor: Actor, chat_id: str) -> list[Message]:
    get_chat(db, actor, chat_id)
    with db.read() as s:
        return list(s.exec(select(Message).where(Message.chat_id == chat_id).order_by(col(Message.created_at), col(Message.id))))


def search_messages(db: Database, actor: Actor, query: str, limit: int = 5) -> list[tuple[Chat, Message]]:
    """Messages of the actor's chats containing ``query`` (the search_chats tool)."""
    words = [w for w in query.split() if w] or [query]
    with db.read() as s:
        q = select(Chat, Message).join(Message, Message.chat_id == Chat.id).where(Chat.owner_id == actor.user_id)
        q = q.where(or_(*[col(Message.content).ilike(f"%{w}%") for w in words]))
        return list(s.exec(q.order_by(col(Message.created_at).desc()).limit(limit)))


def add_message(db: Database, chat_id: str, role: str, content: str, **fields) -> Message:
    msg = Message(chat_id=chat_id, role=role, content=content, **fields)
    with db.write() as s:
        s.add(msg)
        chat = s.get(Chat, chat_id)
        if chat is not None:
            chat.updated_at = utcnow()
            s.add(chat)
    return msg


def history(db: Database, chat_id: str, limit: int = 20) -> list[ChatMessage]:
    """The chat's last turns as model messages (failed answers left out)."""
    with db.read() as s:
        rows = list(s.exec(select(Message).where(Message.chat_id == chat_id)
                           .order_by(col(Message.created_at).desc(), col(Message.id)).limit(limit)))
    return [ChatMessage(m.role, m.content) for m in reversed(rows) if m.role in ("user", "assistant") and m.content and not m.error]


def chat_files(db: Database, chat_id: str) -> list[FileRecord]:
    with db.read() as s:
        return list(s.exec(select(FileRecord).where(FileRecord.chat_id == chat_id)))


def delete_chat(parts: EngineParts, actor: Actor, chat_id: str) -> None:
    get_chat(parts.db, actor, chat_id)
    for rec in chat_files(parts.db, chat_id):
        remove_file_everywhere(parts, rec)
    collection = chat_collection(chat_id)
    if parts.store.collection_exists(collection):
        parts.store.drop_collection(collection)
    with parts.db.write() as s:
        for m in s.exec(select(Message).where(Message.chat_id == chat_id)):
            s.delete(m)
        chat = s.get(Chat, chat_id)
        if chat is not None:
            s.delete(chat)


class ChatStore:
    """One actor's chats, as answering uses them: find or start a chat, store and read turns."""

    def __init__(self, db: Database, actor: Actor):
        self._db, self._actor = db, actor

    def get(self, chat_id: str) -> Chat:
        return get_chat(self._db, self._actor, chat_id)

    def create(self, title: str) -> Chat:
        return create_chat(self._db, self._actor, title)

    def add(self, chat_id: str, role: str, content: str, **fields) -> Message:
        self.get(chat_id)
        return add_message(self._db, chat_id, role, content, **fields)

    def history(self, chat_id: str) -> list[ChatMessage]:
        self.get(chat_id)
        return history(self._db, chat_id)

    def search(self, query: str) -> list[tuple[Chat, Message]]:
        return search_messages(self._db, self._actor, query)
