"""More for a chat's owner: rename, export as Markdown, thumbs up / down on an answer (and the
list of that feedback for admins)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import select

from core.accounts.access import require_admin
from core.chats.store import TITLE_CHARS, chat_messages, get_chat
from core.db.models import Chat, Message, MessageFeedback, User, utcnow
from core.errors import InvalidInput, NotFound
from core.ingest.parts import EngineParts
from core.types import Actor


def rename_chat(parts: EngineParts, actor: Actor, chat_id: str, title: str) -> Chat:
    get_chat(parts.db, actor, chat_id)  # the owner only
    title = (title or "").strip()[:TITLE_CHARS]
    if not title:
        raise InvalidInput("a chat title cannot be empty")
    with parts.db.write() as s:
        chat = s.get(Chat, chat_id)
        chat.title, chat.updated_at = title, utcnow()
        s.add(chat)
    return chat


def chat_markdown(parts: EngineParts, actor: Actor, chat_id: str) -> str:
    """The whole conversation as Markdown: questions, answers with their line breaks, sources."""
    chat = get_chat(parts.db, actor, chat_id)
    lines = [f"# {chat.title or 'Chat'}", "", f"_{chat.created_at:%Y-%m-%d %H:%M} UTC_", ""]
    for msg in chat_messages(parts.db, actor, chat_id):
        if msg.role == "user":
            lines += [f"## {msg.content}", ""]
            continue
        lines += [msg.content, ""]
        for c in msg.citations or []:
            where = " · ".join(x for x in (c.get("source_name", ""), c.get("location", "")) if x)
            lines.append(f"- [{c.get('n', '?')}] {where}")
        if msg.citations:
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _own_answer(parts: EngineParts, actor: Actor, message_id: str) -> Message:
    """An answer in one of the actor's chats (feedback on one's own chats only). Another user's
    answer is "not found" like a missing one, named by the id the caller gave: never its chat."""
    with parts.db.read() as s:
        msg = s.get(Message, message_id)
        chat = s.get(Chat, msg.chat_id) if msg is not None else None
    if msg is None or msg.role != "assistant" or chat is None or chat.owner_id != actor.user_id:
        raise NotFound(f"answer '{message_id}' not found")
    return msg


def set_feedback(parts: EngineParts, actor: Actor, message_id: str, rating: int, comment: str = "") -> None:
    if rating not in (1, -1, 0):
        raise InvalidInput("rating must be 1 (helpful), -1 (not helpful) or 0 (none)")
    _own_answer(parts, actor, message_id)
    with parts.db.write() as s:
        row = s.get(MessageFeedback, (message_id, actor.user_id))
        if rating == 0:
            if row is not None:
                s.delete(row)
            return
        row = row or MessageFeedback(message_id=message_id, user_id=actor.user_id)
        row.rating, row.comment, row.created_at = rating, comment.strip()[:2000], utcnow()
        s.add(row)


def feedback_of(parts: EngineParts, actor: Actor, message_ids: list[str]) -> dict[str, int]:
    """The actor's own ratings of these answers."""
    if not message_ids:
        return {}
    with parts.db.read() as s:
        rows = s.exec(select(MessageFeedback).where(MessageFeedback.user_id == actor.user_id,
                                                    MessageFeedback.message_id.in_(message_ids))).all()
    return {r.message_id: r.rating for r in rows}


@dataclass
class FeedbackItem:
    when: datetime
    user: str
    rating: int
    question: str
    answer: str
    comment: str


def list_feedback(parts: EngineParts, actor: Actor, limit: int = 200) -> list[FeedbackItem]:
    """Every rating, newest first, with the question and the answer (admins)."""
    require_admin(actor, "read answer feedback")
    out = []
    with parts.db.read() as s:
        rows = s.exec(select(MessageFeedback).order_by(MessageFeedback.created_at.desc()).limit(limit)).all()
        for r in rows:
            msg = s.get(Message, r.message_id)
            if msg is None:
                continue
            question = s.exec(select(Message).where(Message.chat_id == msg.chat_id, Message.role == "user",
                                                    Message.created_at <= msg.created_at)
                              .order_by(Message.created_at.desc())).first()
            user = s.get(User, r.user_id)
            out.append(FeedbackItem(r.created_at, user.name if user else r.user_id, r.rating,
                                    question.content if question else "", msg.content, r.comment))
    return out
