"""Chats: list, read, create, rename, export, delete; feedback on answers; files attached to a chat."""

from __future__ import annotations

from core.services.outputs import ChatOut, ChatRow, ChatShown, MessageOut
from core.chats import extras, operator, store
from core.chats.extras import FeedbackItem
from core.db.models import Chat, Message
from core.ingest.service import IngestResult, Upload
from core.services.cli_groups import CHATS
from core.services.declare import Arg, Cli, Http, operation
from core.services.runtime import Runtime
from core.types import Actor


TAG = "chats"
_OWNER = Arg(help="the chat's owner (default: look through everyone's)")
# every user's chats: the CLI's view as the data folder's owner (core/chats/operator.py checks it is)
_EVERY = "read every user's chats"


def _chat_line(r: dict) -> str:
    return f"{r['id']}  {r['updated_at'][:16]}  {r['owner']:<16} {r['title'] or '(untitled)'}"


def _shown_markdown(printed: dict) -> str:
    shown = ChatShown.model_validate(printed)
    return operator.operator_markdown(shown.title, shown.owner, shown.messages).rstrip()


class ChatService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    @operation(http=Http("GET", "/api/v1/chats", out=list[ChatOut], tag=TAG,
                         summary="Your chats, newest first; 'query' matches titles and message text"))
    def list_chats(self, actor: Actor, query: str = "") -> list[Chat]:
        return store.list_chats(self._rt.db, actor, query)

    @operation(http=Http("GET", "/api/v1/chats/{chat_id}/messages", out=list[MessageOut], tag=TAG,
                         summary="A chat's messages in order"))
    def chat_messages(self, actor: Actor, chat_id: str) -> list[Message]:
        return store.chat_messages(self._rt.db, actor, chat_id)

    @operation(http=Http("POST", "/api/v1/chats", out=ChatOut, tag=TAG, status_code=201, summary="Start a chat"))
    def create_chat(self, actor: Actor, title: str = "") -> Chat:
        return store.create_chat(self._rt.db, actor, title)

    @operation()
    def delete_chat(self, actor: Actor, chat_id: str) -> None:
        """The chat, its messages, its files and their vectors."""
        store.delete_chat(self._rt.parts, actor, chat_id)

    @operation()
    def rename_chat(self, actor: Actor, chat_id: str, title: str) -> Chat:
        return extras.rename_chat(self._rt.parts, actor, chat_id, title)

    @operation()
    def export_chat_markdown(self, actor: Actor, chat_id: str) -> str:
        return extras.chat_markdown(self._rt.parts, actor, chat_id)

    @operation()
    def set_feedback(self, actor: Actor, message_id: str, rating: int, comment: str = "") -> None:
        """Thumbs up (1) / down (-1) / none (0) on an answer in one of the actor's chats."""
        extras.set_feedback(self._rt.parts, actor, message_id, rating, comment)

    @operation()
    def feedback_of(self, actor: Actor, message_ids: list[str]) -> dict[str, int]:
        return extras.feedback_of(self._rt.parts, actor, message_ids)

    @operation()
    def list_feedback(self, actor: Actor, limit: int = 200) -> list[FeedbackItem]:
        return extras.list_feedback(self._rt.parts, actor, limit)

    @operation()
    def attach_to_chat(self, actor: Actor, chat_id: str, uploads: list[Upload]) -> list[IngestResult]:
        """Index files into the chat's own collection (``ragdesk_chat_<id>``; reindex never touches it)."""
        from core.chats.attachments import attach_uploads

        return attach_uploads(self._rt.parts, self._rt.snapshot(), actor, chat_id, uploads)

    # list, show, export: the CLI's chats group lists them in this order (core/cli/derived.py); no
    # docstrings, so their help stays what the hand-written commands said
    @operation(access="admin", admin_does=_EVERY, handoff=True, cli=Cli(
        "list", group=CHATS, human=lambda rs: "\n".join(map(_chat_line, rs)) or "no chats",
        args={"user": Arg(help="only this user's chats (default: everyone's)"),
              "search": Arg(help="words in the title or the messages")}))
    def all_chats(self, actor: Actor, user: str | None = None, search: str = "") -> list[ChatRow]:
        # every user's chats (or one user's), by owner, newest first: the data folder's owner only
        return [ChatRow(id=chat.id, title=chat.title, owner=name, updated_at=chat.updated_at)
                for name, chat in operator.all_chats(self._rt.db, actor, user, search)]

    @operation(access="admin", admin_does=_EVERY, handoff=True, cli=Cli(
        "show", group=CHATS, help="print a chat", args={"user": _OWNER}, human=_shown_markdown))
    def any_chat(self, actor: Actor, chat_id: str, user: str | None = None) -> ChatShown:
        # any user's chat with its owner and messages: the data folder's owner only
        owner, chat, messages = operator.any_chat(self._rt.db, actor, chat_id, user)
        return ChatShown.model_validate({"id": chat.id, "title": chat.title, "owner": owner, "messages": messages})

    @operation(access="admin", admin_does=_EVERY, handoff=True, cli=Cli(
        "export", group=CHATS, help="write a chat as a Markdown file", args={"user": _OWNER},
        output=("-o", "--output"), output_help="file to write (default: standard output)",
        output_reply=lambda asked, path: {"chat": asked["chat_id"], "written": path},
        reply=lambda _, text: {"markdown": text}, out=dict[str, str], human=lambda r: r["markdown"].removesuffix("\n")))
    def any_chat_markdown(self, actor: Actor, chat_id: str, user: str | None = None) -> str:
        # any user's chat as Markdown (questions quoted, answers, sources), its owner named: the data
        # folder's owner only
        owner, chat, messages = operator.any_chat(self._rt.db, actor, chat_id, user)
        return operator.operator_markdown(chat.title, owner, messages)
