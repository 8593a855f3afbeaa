"""Follow-up questions in normal mode: the knowledge base is searched with the conversation's
context, not with the bare follow-up ("and for managers?", "那第二条呢？" find nothing alone).

Only a message that *looks like* a follow-up is rewritten (``looks_like_follow_up``: it opens
like one — "and …", "what about …", "那…", "还有…" — ends in 呢, or is short and leans on a
pronoun or names almost nothing; in Chinese, which drops a shared subject, two content words
or fewer, in English two or fewer in a question of four words at most); a standalone question
is searched as written, so a change
of topic is not dragged back to the last one. Then:

* with a chat model configured, the model writes the search query from the last turns (the
  same way the web search's query generation reads the conversation); its failure, or a reply
  that is not the asked JSON, falls back to the rule below, with a notice;
* offline (the extractive answerer), the rule: the previous question's own search query (itself
  contextualised when it was a follow-up) followed by the follow-up.

Strict mode never gets here: it receives no history, so a follow-up is searched as written.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable

from core.answering.coverage import key_terms
from core.llm.base import ChatMessage
from core.notices import Notice, notice

log = logging.getLogger(__name__)

HISTORY_TURNS = 4  # the last turns the model sees (as web search's query generation)
_EN_OPENERS = re.compile(r"^(and|but|also|or|so|then|what about|how about|what if|same for|and what about|"
                         r"and how about|and for|and if|in that case)\b")
_EN_PRONOUNS = frozenset("it its they them their theirs that this those these there one ones he she his her".split())
_ZH_OPENERS = ("那么", "那", "还有", "另外", "而", "再", "如果是", "要是", "换成", "至于")
_ZH_PRONOUNS = ("它", "其", "该", "这个", "那个", "这些", "那些", "这条", "那条", "上述", "前面", "刚才", "上面", "此")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")

QUERY_PROMPT = """Rewrite the user's latest message as one standalone search query for a knowledge base, \
using the conversation for what it refers to. Keep the language of the latest message and every name, \
number and term it uses. Reply with JSON only, exactly in this form: {{"query": "the search query"}}

Conversation:
{history}

Latest message:
{message}"""


@dataclass(frozen=True)
class SearchQuery:
    text: str
    by: str  # "message" (searched as written) | "rules" | "model"


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).strip().lower())


def looks_like_follow_up(message: str) -> bool:
    text = _normalise(message)
    terms = key_terms(message)
    if _CJK.search(text):
        body = text.rstrip("?？!！。. ")
        if body.startswith(_ZH_OPENERS) or body.endswith("呢"):
            return True
        # Chinese drops the subject it shares with the last question: two content words or fewer
        # ("需要延长的话由谁批准？") lean on the conversation.
        return len(terms) <= 2 or (len(terms) <= 3 and any(p in body for p in _ZH_PRONOUNS))
    if _EN_OPENERS.match(text):
        return True
    words = re.findall(r"[a-z0-9']+", text)
    # As in Chinese, a question that short names too little to stand alone ("How far in advance?":
    # four words, two content words); a real question of four words names three things or more.
    return (len(terms) <= 1 or (len(terms) <= 3 and bool(set(words) & _EN_PRONOUNS))
            or (len(terms) <= 2 and len(words) <= 4))


def rule_query(message: str, earlier: list[ChatMessage]) -> str:
    """The offline contextualiser: each earlier user turn's query in order, a follow-up joined
    to the query before it."""
    previous = ""
    for m in earlier:
        if m.role == "user" and m.content.strip():
            previous = _joined(m.content, previous)
    return _joined(message, previous)


def _joined(message: str, previous: str) -> str:
    return f"{previous} {message}".strip() if previous and looks_like_follow_up(message) else message


def _history_text(earlier: list[ChatMessage]) -> str:
    turns = [m for m in earlier if m.role in ("user", "assistant")][-HISTORY_TURNS:]
    return "\n".join(f"{m.role}: {m.content[:500]}" for m in turns)


def parse_query(reply: str) -> str | None:
    start, end = reply.find("{"), reply.rfind("}")
    if start == -1 or end < start:
        return None
    try:
        data = json.loads(reply[start:end + 1])
    except json.JSONDecodeError:
        return None
    query = data.get("query") if isinstance(data, dict) else None
    return query.strip() if isinstance(query, str) and query.strip() else None


def search_query(message: str, earlier: list[ChatMessage], ask_model: Callable[[str], str] | None,
                 on_notice: Callable[[Notice], None]) -> SearchQuery:
    """What to search for ``message`` given the conversation before it. ``ask_model``: one prompt
    to the chat model, its text back (None: no chat model, the rule is used)."""
    if not any(m.role == "user" for m in earlier) or not looks_like_follow_up(message):
        return SearchQuery(message, "message")
    if ask_model is not None:
        try:
            query = parse_query(ask_model(QUERY_PROMPT.format(history=_history_text(earlier), message=message)))
        except Exception as exc:  # any failure of the model: the rule instead (logged, and said)
            log.warning("follow-up search query generation failed: %s", exc)
            query = None
        if query:
            return SearchQuery(query, "model")
        on_notice(notice("followup.no_query"))
    return SearchQuery(rule_query(message, earlier), "rules")
