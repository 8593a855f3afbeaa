"""Search and ask: the retrieval test and one-off answers (nothing stored; chats keep theirs)."""

from __future__ import annotations

from core.api.models import AnswerOut, AskIn, SearchIn, SearchOut
from core.api.registry import operation

TAG = "search and answers"


@operation("search", "POST", "/api/v1/search", input=SearchIn, output=SearchOut, tag=TAG,
           summary="Hybrid search over the knowledge bases you may read (the retrieval test)",
           example={"query": "remote work"})
def search(engine, actor, data: SearchIn) -> SearchOut:
    result = engine.search(actor, data.query, data.kbs, mode=data.mode, top_k=data.top_k, min_score=data.min_score)
    return SearchOut.model_validate(result)


@operation("ask", "POST", "/api/v1/ask", input=AskIn, output=AnswerOut, tag=TAG,
           summary="Answer a question from the knowledge bases, with its citations; nothing is stored. "
                   "Strict mode holds as in the chat: with it on, only admins get a normal answer; a "
                   "question without a hit gets the fixed reply and no model is called",
           example={"question": "How many days may I work remotely?"})
def ask(engine, actor, data: AskIn) -> AnswerOut:
    answer = engine.ask(actor, data.question, kbs=data.kbs, mode=data.mode, temporary=True, web=data.web)
    return AnswerOut.model_validate(answer)
