"""Chats: yours alone (admins included), as in the dashboard's chat."""

from __future__ import annotations

from core.api.models import (
    AnswerOut,
    ChatAskIn,
    ChatCreate,
    ChatList,
    ChatOut,
    ChatRef,
    MessageOut,
)
from core.api.registry import operation

TAG = "chats"


@operation("list_chats", "GET", "/api/v1/chats", input=ChatList, output=list[ChatOut], tag=TAG,
           summary="Your chats, newest first; 'query' matches titles and message text")
def list_chats(engine, actor, data: ChatList) -> list[ChatOut]:
    return [ChatOut.model_validate(c) for c in engine.list_chats(actor, data.query)]


@operation("create_chat", "POST", "/api/v1/chats", input=ChatCreate, output=ChatOut, tag=TAG, status_code=201,
           summary="Start a chat")
def create_chat(engine, actor, data: ChatCreate) -> ChatOut:
    return ChatOut.model_validate(engine.create_chat(actor, data.title))


@operation("chat_messages", "GET", "/api/v1/chats/{chat_id}/messages", input=ChatRef, output=list[MessageOut],
           tag=TAG, summary="A chat's messages in order")
def chat_messages(engine, actor, data: ChatRef) -> list[MessageOut]:
    return [MessageOut.model_validate(m) for m in engine.chat_messages(actor, data.chat_id)]


@operation("chat_ask", "POST", "/api/v1/chats/{chat_id}/messages", input=ChatAskIn, output=AnswerOut, tag=TAG,
           summary="Ask in a chat: the question and its answer are stored in it (normal mode reads its history)",
           example={"question": "How many days may I work remotely?"})
def chat_ask(engine, actor, data: ChatAskIn) -> AnswerOut:
    answer = engine.ask(actor, data.question, kbs=data.kbs, chat_id=data.chat_id, mode=data.mode, web=data.web)
    return AnswerOut.model_validate(answer)
