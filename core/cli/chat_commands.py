"""``chats`` (list, show, export as Markdown) and ``jobs`` (list, cancel).

Chats are private to their owner, in the dashboard admins included. The CLI runs as the owner
of the data folder, who can read the database file anyway: it reads a user's chats by acting as
that user (``--user NAME``), and without it looks through every user's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.context import emit, local_engine
from core.errors import InvalidInput, NotFound
from core.types import SYSTEM_ACTOR
from core.accounts.users import user_name_key


def _owners(engine, user: str | None) -> list:
    """(name, Actor) of the users whose chats to read."""
    everyone = engine.list_users(SYSTEM_ACTOR)
    if user:
        chosen = [u for u in everyone if user_name_key(u.name) == user_name_key(user)]
        if not chosen:
            raise NotFound(f"user '{user}' not found")
        everyone = chosen
    return [(u.name, engine.actor_for(u.id)) for u in everyone]


def _find_chat(engine, chat_id: str, user: str | None):
    for name, actor in _owners(engine, user):
        for chat in engine.list_chats(actor):
            if chat.id == chat_id:
                return name, actor, chat
    raise NotFound(f"chat '{chat_id}' not found")


def _message_row(m) -> dict:
    return {"role": m.role, "content": m.content, "mode": m.mode, "hit": m.hit, "llm_called": m.llm_called,
            "citations": m.citations, "notices": m.notices, "created_at": m.created_at}


def chat_markdown(title: str, owner: str, messages: list[dict]) -> str:
    """A chat as a Markdown document: questions as quotes, answers as written, sources listed."""
    lines = [f"# {title or 'Untitled chat'}", "", f"*{owner}*", ""]
    for m in messages:
        when = f"{m['created_at']:%Y-%m-%d %H:%M}" if hasattr(m["created_at"], "strftime") else str(m["created_at"])
        if m["role"] == "user":
            lines += [f"## Question · {when}", "", *[f"> {line}" for line in (m["content"] or "").splitlines() or [""]], ""]
            continue
        mode = f" ({m['mode']} mode)" if m["mode"] else ""
        lines += [f"### Answer{mode}", "", m["content"] or "", ""]
        lines += [f"*{n}*" for n in m["notices"] or []]
        cites = m["citations"] or []
        if cites:
            lines += ["", "Sources:", ""]
            for c in cites:
                where = f", {c.get('location')}" if c.get("location") else ""
                lines.append(f"{c.get('n', '-')}. {c.get('source_name', '')}{where}")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def cmd_chats(args: argparse.Namespace) -> int:
    with local_engine(args) as engine:
        if args.chats_command == "list":
            rows = [{"id": c.id, "title": c.title, "owner": name, "updated_at": c.updated_at}
                    for name, actor in _owners(engine, args.user) for c in engine.list_chats(actor, args.search or "")]
            emit(args, rows, lambda rs: "\n".join(
                f"{r['id']}  {r['updated_at']:%Y-%m-%d %H:%M}  {r['owner']:<16} {r['title'] or '(untitled)'}" for r in rs)
                or "no chats")
            return 0
        owner, actor, chat = _find_chat(engine, args.chat_id, args.user)
        messages = [_message_row(m) for m in engine.chat_messages(actor, chat.id)]
    if args.chats_command == "show":
        payload = {"id": chat.id, "title": chat.title, "owner": owner, "messages": messages}
        emit(args, payload, lambda p: chat_markdown(p["title"], p["owner"], p["messages"]).rstrip())
        return 0
    text = chat_markdown(chat.title, owner, messages)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InvalidInput(f"cannot write {args.output}: {exc.strerror}") from None
        emit(args, {"chat": chat.id, "written": args.output}, lambda r: f"wrote {r['written']}")
    else:
        print(text, end="")
    return 0


def register_chats(sub: argparse._SubParsersAction) -> None:
    chats = sub.add_parser("chats", help="list, show or export (Markdown) saved chats")
    chats.set_defaults(handler=cmd_chats)
    cs = chats.add_subparsers(dest="chats_command", required=True)
    ls = cs.add_parser("list")
    ls.add_argument("--user", help="only this user's chats (default: everyone's)")
    ls.add_argument("--search", help="words in the title or the messages")
    for verb, text in (("show", "print a chat"), ("export", "write a chat as a Markdown file")):
        p = cs.add_parser(verb, help=text)
        p.add_argument("chat_id")
        p.add_argument("--user", help="the chat's owner (default: look through everyone's)")
        if verb == "export":
            p.add_argument("-o", "--output", help="file to write (default: standard output)")
