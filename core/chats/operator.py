"""Every user's chats, for the data folder's owner alone (the CLI's ``chats`` group).

Chats are private to their owner, in the dashboard admins included. The CLI runs as the owner of
the data folder, who can read the database file anyway: it reads a user's chats as that user, and
without a user named looks through everyone's. No dashboard or API admin reaches this (the local
operator's identity is checked here, not only the admin role).
"""

from __future__ import annotations

from core.accounts.users import actor_of, list_users, user_name_key
from core.chats import store
from core.db.database import Database
from core.db.models import Chat, Message
from core.errors import NotFound, PermissionDenied
from core.types import SYSTEM_ACTOR, Actor


def _require_local_operator(actor: Actor) -> None:
    if actor.user_id != SYSTEM_ACTOR.user_id:
        raise PermissionDenied("chats are private to their owner: only the data folder's owner (the CLI) "
                               "reads another user's")


def _owners(db: Database, actor: Actor, user: str | None) -> list[tuple[str, Actor]]:
    """(name, Actor) of the users whose chats to read: ``user`` alone, or everyone by name."""
    _require_local_operator(actor)
    everyone = list_users(db, actor)
    if user:
        everyone = [u for u in everyone if user_name_key(u.name) == user_name_key(user)]
        if not everyone:
            raise NotFound(f"user '{user}' not found")
    return [(u.name, actor_of(u)) for u in everyone]


def all_chats(db: Database, actor: Actor, user: str | None = None, search: str = "") -> list[tuple[str, Chat]]:
    """(owner name, chat) of every user's chats (or ``user``'s), by owner, newest first; ``search``
    matches titles and message text."""
    return [(name, chat) for name, owner in _owners(db, actor, user) for chat in store.list_chats(db, owner, search)]


def any_chat(db: Database, actor: Actor, chat_id: str, user: str | None = None) -> tuple[str, Chat, list[Message]]:
    """(owner name, chat, its messages) of the chat ``chat_id``, looked for among ``user``'s chats
    or everyone's."""
    for name, owner in _owners(db, actor, user):
        for chat in store.list_chats(db, owner):
            if chat.id == chat_id:
                return name, chat, store.chat_messages(db, owner, chat.id)
    raise NotFound(f"chat '{chat_id}' not found")


def operator_markdown(title: str, owner: str, messages: list) -> str:
    """A chat as a Markdown document: questions as quotes, answers as written, sources listed
    (``messages``: rows with role, content, mode, notices, citations and created_at)."""
    lines = [f"# {title or 'Untitled chat'}", "", f"*{owner}*", ""]
    for m in messages:
        if m.role == "user":
            lines += [f"## Question · {m.created_at:%Y-%m-%d %H:%M}", "",
                      *[f"> {line}" for line in (m.content or "").splitlines() or [""]], ""]
            continue
        mode = f" ({m.mode} mode)" if m.mode else ""
        lines += [f"### Answer{mode}", "", m.content or "", ""]
        lines += [f"*{n}*" for n in m.notices or []]
        cites = m.citations or []
        if cites:
            lines += ["", "Sources:", ""]
            for c in cites:
                where = f", {c.get('location')}" if c.get("location") else ""
                lines.append(f"{c.get('n', '-')}. {c.get('source_name', '')}{where}")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
