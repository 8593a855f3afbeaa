"""Chats and their messages. A chat belongs to its owner alone (admins included: chats are
private). Files attached to a chat live in the chat's own collection (``ragdesk_chat_<id>``): reindex
never touches them, and deleting the chat removes them and their vectors.
"""

from __future__ import annotations

from sqlmodel import col, or_, select

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


def create_chat(parts: EngineParts, actor: Actor, title: str = "") -> Chat:
    chat = Chat(owner_id=actor.user_id, title=title.strip()[:TITLE_CHARS])
    with parts.db.write() as s:
        s.add(chat)
    return chat


def get_chat(parts: EngineParts, actor: Actor, chat_id: str) -> Chat:
    with parts.db.read() as s:
        chat = s.get(Chat, chat_id)
    # Someone else's chat and a missing one look the same, so ids do not leak.
    if chat is None or chat.owner_id != actor.user_id:
        raise NotFound(f"chat '{chat_id}' not found")
    return chat


def list_chats(parts: EngineParts, actor: Actor, query: str = "") -> list[Chat]:
    """The actor's chats, newest first; ``query`` matches titles and message text."""
    with parts.db.read() as s:
        q = select(Chat).where(Chat.owner_id == actor.user_id)
        if query.strip():
            pattern = f"%{query.strip()}%"
            in_messages = select(Message.chat_id).where(col(Message.content).ilike(pattern))
            q = q.where(or_(col(Chat.title).ilike(pattern), col(Chat.id).in_(in_messages)))
        return list(s.exec(q.order_by(col(Chat.updated_at).desc())))


def chat_messages(parts: EngineParts, actor: Actor, chat_id: str) -> list[Message]:
    get_chat(parts, actor, chat_id)
    with parts.db.read() as s:
        return list(s.exec(select(Message).where(Message.chat_id == chat_id).order_by(col(Message.created_at), col(Message.id))))


def search_messages(parts: EngineParts, actor: Actor, query: str, limit: int = 5) -> list[tuple[Chat, Message]]:
    """Messages of the actor's chats containing ``query`` (the search_chats tool)."""
    words = [w for w in query.split() if w] or [query]
    with parts.db.read() as s:
        q = select(Chat, Message).join(Message, Message.chat_id == Chat.id).where(Chat.owner_id == actor.user_id)
        q = q.where(or_(*[col(Message.content).ilike(f"%{w}%") for w in words]))
        return list(s.exec(q.order_by(col(Message.created_at).desc()).limit(limit)))


def add_message(parts: EngineParts, chat_id: str, role: str, content: str, **fields) -> Message:
    msg = Message(chat_id=chat_id, role=role, content=content, **fields)
    with parts.db.write() as s:
        s.add(msg)
        chat = s.get(Chat, chat_id)
        if chat is not None:
            chat.updated_at = utcnow()
            s.add(chat)
    return msg


def history(parts: EngineParts, chat_id: str, limit: int = 20) -> list[ChatMessage]:
    """The chat's last turns as model messages (failed answers left out)."""
    with parts.db.read() as s:
        rows = list(s.exec(select(Message).where(Message.chat_id == chat_id)
                           .order_by(col(Message.created_at).desc(), col(Message.id)).limit(limit)))
    return [ChatMessage(m.role, m.content) for m in reversed(rows) if m.role in ("user", "assistant") and m.content and not m.error]


def chat_files(parts: EngineParts, chat_id: str) -> list[FileRecord]:
    with parts.db.read() as s:
        return list(s.exec(select(FileRecord).where(FileRecord.chat_id == chat_id)))


def delete_chat(parts: EngineParts, actor: Actor, chat_id: str) -> None:
    get_chat(parts, actor, chat_id)
    for rec in chat_files(parts, chat_id):
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
