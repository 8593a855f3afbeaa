"""Prompt assembly: numbered context blocks, the RAG template, the strict-mode system block.

A context block is ``[n] source (location)`` on one line and the passage text below it; the
answer cites ``[n]``. Template placeholders are ``{{CONTEXT}}`` and ``{{QUERY}}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.llm.base import ChatMessage, Passage, RetrievedContext

NORMAL_SYSTEM_PROMPT = (
    "You are the assistant of a team's knowledge-base console. Answer helpfully and concisely, "
    "in the language of the user's message."
)

STRICT_BLOCK = """严格问答模式 / Strict knowledge-base mode.
只能依据下面编号的知识库资料作答：不得使用资料以外的知识，不做外部推理，不编造。
Answer ONLY from the numbered knowledge-base passages below; use no outside knowledge.
- 问题中资料没有覆盖的部分，明确回答「{uncovered}」。 / For any part of the question the passages do not cover, say "{uncovered}".
- 每个论断后用 [n] 标注所依据的资料编号。 / Cite the passage behind every statement as [n].
- 用提问者的语言作答。 / Answer in the language of the question.

<knowledge_base>
{context}
</knowledge_base>"""


@dataclass
class ContextItem:
    """One piece of context that may be injected: a retrieved chunk, a whole document, a tool result."""

    text: str
    source: str
    location: str = ""
    score: float = 0.0  # relevance; the budget drops the lowest first
    chunk_id: str = ""
    file_id: str = ""
    kb_id: str = ""
    heading_path: list[str] = field(default_factory=list)
    page: int | None = None
    page_end: int | None = None  # a passage running on to a later page
    slide: int | None = None
    start_seconds: float | None = None
    kind: str = "chunk"  # chunk | document | tool
    origin: str = "kb"  # where it came from: kb | attachment (a chat's file) | url (a fetched page) | web
    n: int = 0  # citation number, set when the context is numbered


def number(items: list[ContextItem], start: int = 1) -> list[ContextItem]:
    for i, item in enumerate(items, start):
        item.n = i
    return items


def block(item: ContextItem) -> str:
    head = f"[{item.n}] {item.source}" + (f" ({item.location})" if item.location else "")
    return f"{head}\n{item.text.strip()}"


def format_context(items: list[ContextItem]) -> str:
    return "\n\n".join(block(i) for i in items)


def passages(items: list[ContextItem]) -> list[Passage]:
    return [Passage(i.n, i.text, i.source, i.origin) for i in items]


def fill_template(template: str, context: str, query: str) -> str:
    # One pass each, in this order, so a query containing "{{CONTEXT}}" is not expanded.
    return template.replace("{{CONTEXT}}", context).replace("{{QUERY}}", query)


def strict_block(items: list[ContextItem], uncovered_text: str) -> str:
    return STRICT_BLOCK.format(uncovered=uncovered_text, context=format_context(items))


@dataclass
class Prompt:
    messages: list[ChatMessage]
    injected: list[ContextItem]


def strict_messages(question: str, items: list[ContextItem], uncovered_text: str) -> Prompt:
    """Exactly two messages: the strict system block, immediately followed by the user message.
    No other system prompt, no history, no memory."""
    ctx = RetrievedContext(question, passages(items), uncovered_text)
    system = ChatMessage("system", strict_block(items, uncovered_text))
    return Prompt([system, ChatMessage("user", question, retrieved=ctx)], items)


def normal_messages(
    question: str,
    items: list[ContextItem],
    history: list[ChatMessage],
    *,
    template: str,
    system_context: bool,
    extra_system: str = "",
) -> Prompt:
    """Normal mode: the system prompt, the history, then the user message. With context, the
    filled template goes into the user message, or (``system_context``) into the system
    message so the prefix stays put and providers can reuse their prompt cache."""
    system = NORMAL_SYSTEM_PROMPT + (f"\n\n{extra_system}" if extra_system else "")
    user = question
    ctx = RetrievedContext(question, passages(items)) if items else None
    if items:
        filled = fill_template(template, format_context(items), question)
        if system_context:
            system = f"{system}\n\n{filled}"
        else:
            user = filled
    return Prompt([ChatMessage("system", system), *history, ChatMessage("user", user, retrieved=ctx)], items)
