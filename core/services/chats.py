"""Chats: list, read, create, rename, export, delete; feedback on answers; files attached to a chat."""

from __future__ import annotations

from core.services.outputs import ChatOut, MessageOut
from core.chats import extras, store
from core.chats.extras import FeedbackItem
from core.db.models import Chat, Message
from core.ingest.service import IngestResult, Upload
from core.services.declare import Http, operation
from core.services.runtime import Runtime
from core.types import Actor


TAG = "chats"


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
