"""Calling the chat model: streamed text, a bounded native tool loop."""

from __future__ import annotations

from core.answering.run import AnswerRun
from core.answering.tools import ToolBox
from core.llm.base import ChatMessage, ChatModel, TextDelta, ToolCallsReady, ToolSpec
from core.notices import notice


def generate(run: AnswerRun, model: ChatModel, messages: list[ChatMessage], tools: list[ToolSpec] | None,
             toolbox: ToolBox | None, max_rounds: int, hold: bool = False) -> str:
    """Stream the answer; when the model calls tools, run them and ask again, at most
    ``max_rounds`` times; then it is asked once more without tools, so it must answer.
    ``hold``: the text is not emitted as it comes (strict mode checks it before it is shown)."""
    messages = list(messages)
    rounds = 0
    text: list[str] = []
    run.answer.llm_called = True
    run.emit("generating", f"asking {model.id}", model=model.id)
    while True:
        offer = tools if tools and toolbox is not None and rounds < max_rounds else None
        run.mark("to_model_ms")
        text, calls = [], []
        for event in model.stream(messages, offer):
            if isinstance(event, TextDelta):
                if event.text:
                    run.mark("first_token_ms")
                    text.append(event.text)
                    if not hold:
                        run.emit("text", event.text)
            elif isinstance(event, ToolCallsReady):
                calls = event.calls
        if not calls or offer is None:
            if calls:
                run.notice(notice("generate.tool_limit"))
            return "".join(text)
        rounds += 1
        messages.append(ChatMessage("assistant", "".join(text), tool_calls=calls))
        for call in calls:
            run.emit("tool_call", f"{call.name}({_short(call.arguments)})", name=call.name, arguments=call.arguments)
            messages.append(ChatMessage("tool", toolbox.run(call), tool_call_id=call.id, name=call.name))


def _short(arguments: dict) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
    return text if len(text) <= 120 else text[:117] + "..."
