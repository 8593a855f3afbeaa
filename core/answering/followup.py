"""Follow-up questions in normal mode: the knowledge base is searched with the conversation's
context, not with the bare follow-up ("and for managers?", "那第二条呢？" find nothing alone).

Only a follow-up is rewritten (``follows_up``). A message is one when it opens like one —
"and …", "what about …", "besides …", "那…", "还有…", "除了…" — ends in 呢, or leans on a pronoun;
or when it is short: in English two content words or fewer in four words, or one; in Chinese,
which drops the subject it shares with the last question, two content words or fewer, or three
when one of them is the previous answer's own ("不要钱可以换成调休吗？" after an answer on 调休).
A standalone question is searched as written, so a change of topic is not dragged back to the
last one (a short new question is not told apart: "年假可以结转几天？" after a question on 抗诉 is
joined to it; checking its words against the previous turn's answer cost three real follow-ups
on the tune half, whose answers quote too little of their article). Then:

* with a chat model configured, the model writes the search query from the last turns (the
  same way the web search's query generation reads the conversation); its failure, or a reply
  that is not the asked JSON, falls back to the rule below, with a notice;
* offline (the extractive answerer), the rule (``rule_query``): the previous question's own
  search query (itself contextualised when it was a follow-up) followed by the follow-up, and
  what the follow-up points at in the previous *answer*: "这一条 / 这个期限 / this article /
  that deadline" adds the article the answer quoted (its 第N条 / Article N); "下一条 / the next
  article" searches the article after it instead; a follow-up naming its own article ("第十一条呢？"
  after "第十条规定了什么？") puts it in the previous question's place.

Strict mode never gets here: it receives no history, so a follow-up is searched as written.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable

from core.answering.coverage import key_terms, mentions
from core.llm.base import ChatMessage
from core.notices import Notice, notice

log = logging.getLogger(__name__)

HISTORY_TURNS = 4  # the last turns the model sees (as web search's query generation)
_EN_OPENERS = re.compile(r"^(and|but|also|or|so|then|what about|how about|what if|same for|and what about|"
                         r"and how about|and for|and if|in that case|besides|apart from|other than|except for)\b")
_EN_PRONOUNS = frozenset("it its they them their theirs that this those these there one ones he she his her".split())
_ZH_OPENERS = ("那么", "那", "还有", "另外", "而", "再", "如果是", "要是", "换成", "至于", "除了", "除去", "除此之外")
_ZH_PRONOUNS = ("它", "其", "该", "这个", "那个", "这些", "那些", "这条", "那条", "上述", "前面", "刚才", "上面", "此")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
# Articles as the documents number them: 第十二条 / Article 12 (the extractive answer quotes them).
_ZH_NUMERAL = "零〇一二两三四五六七八九十百"
_ZH_ARTICLE = re.compile(rf"第([{_ZH_NUMERAL}\d]+)条")
_EN_ARTICLE = re.compile(r"\b(article|section|clause)\s+(\d+)\b", re.IGNORECASE)
# What points into the previous answer: "这一条", "这个期限", "该规定", "this article", "that deadline".
_ZH_POINTER = re.compile(r"(这|那|该|此|上述|本)(一|个|些)?(条|款|项|期限|期间|时限|规定|文书|决定|标准)")
_EN_POINTER = re.compile(r"\b(this|that|the same)\s+(article|section|clause|rule|deadline|period|time limit|limit|"
                         r"document|form|decision)\b")
_ZH_NEXT, _ZH_BEFORE = re.compile(r"(下|后)一条"), re.compile(r"(上|前)一条")
_EN_NEXT = re.compile(r"\b(next|following) (article|section|clause)\b")
_EN_BEFORE = re.compile(r"\b(previous|preceding) (article|section|clause)\b")

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
    """Whether a message has a follow-up's opener or shape, before the conversation is read."""
    return _shape(message) != "standalone"


def _shape(message: str) -> str:
    """"marked" (an opener, 呢, a pronoun), "short" (names too little to stand alone), or "standalone"."""
    text = _normalise(message)
    terms = key_terms(message)
    if _CJK.search(text):
        body = text.rstrip("?？!！。. ")
        if body.startswith(_ZH_OPENERS) or body.endswith("呢") or _ZH_POINTER.search(body) or _next_or_before(body):
            return "marked"
        if len(terms) <= 3 and any(p in body for p in _ZH_PRONOUNS):
            return "marked"
        # Chinese drops the subject it shares with the last question: two content words or fewer
        # ("需要延长的话由谁批准？") lean on the conversation.
        return "short" if len(terms) <= 2 else "standalone"
    if _EN_OPENERS.match(text):
        return "marked"
    words = re.findall(r"[a-z0-9']+", text)
    if _next_or_before(text) or (len(terms) <= 3 and (set(words) & _EN_PRONOUNS or _EN_POINTER.search(text))):
        return "marked"
    # As in Chinese, a question that short names too little to stand alone ("How far in advance?":
    # four words, two content words); a real question of four words names three things or more.
    return "short" if len(terms) <= 1 or (len(terms) <= 2 and len(words) <= 4) else "standalone"


def follows_up(message: str, previous: str, answer: str) -> bool:
    """Whether ``message`` continues the turn before it (its question ``previous`` and ``answer``)."""
    if not previous:
        return False
    shape = _shape(message)
    if shape != "standalone":
        return True
    # A Chinese question of three content words, one of them the previous answer's own, leans on
    # it too ("不要钱可以换成调休吗？" after an answer on 调休).
    if not _CJK.search(message):
        return False
    terms = key_terms(message)
    return len(terms) <= 3 and any(mentions(answer, t) for t in terms)


def rule_query(message: str, earlier: list[ChatMessage]) -> str:
    """The offline contextualiser: each earlier user turn's query in order, a follow-up resolved
    against the turn before it (its query and its answer; module doc)."""
    previous, answer = "", ""
    for m in earlier:
        if m.role == "user" and m.content.strip():
            previous, answer = _resolved(m.content, previous, answer), ""
        elif m.role == "assistant":
            answer = m.content
    return _resolved(message, previous, answer)


def _resolved(message: str, previous: str, answer: str) -> str:
    if not follows_up(message, previous, answer):
        return message
    cited = _cited_article(answer) or _named_article(previous)
    moved = _next_or_before(message)
    if moved and cited:  # "下一条呢？": the article after the one just quoted (of the same document)
        return f"{previous} {_article_label(cited[0], cited[1] + moved)} {message}"
    own = _articles(message)
    if own and _articles(previous):  # "第十一条呢？" after "第十条规定了什么？": the new article in its place
        return f"{_ARTICLES_ANY.sub(own[0], previous)} {message}"
    pointer = _ZH_POINTER.search(message) or _EN_POINTER.search(_normalise(message))
    if pointer and cited and _article_label(*cited) not in previous:  # "这一条 / 这个期限": the article the answer quoted
        return f"{previous} {_article_label(*cited)} {message}"
    return f"{previous} {message}"


_ARTICLES_ANY = re.compile(f"{_ZH_ARTICLE.pattern}|{_EN_ARTICLE.pattern}", re.IGNORECASE)


def _articles(text: str) -> list[str]:
    return [m.group() for m in _ARTICLES_ANY.finditer(text)]


def _cited_article(answer: str) -> tuple[str, int] | None:
    """("zh" | the English word, its number) of the first article a quoted line opens with."""
    for line in answer.splitlines():
        line = line.strip()
        zh, en = _ZH_ARTICLE.match(line), _EN_ARTICLE.match(line)
        if zh and _zh_to_int(zh.group(1)):
            return "zh", _zh_to_int(zh.group(1))
        if en:
            return en.group(1), int(en.group(2))
    return None


def _named_article(question: str) -> tuple[str, int] | None:
    """The article a question names itself ("第二十七条是关于什么的？"), when its answer quoted none."""
    zh, en = _ZH_ARTICLE.search(question), _EN_ARTICLE.search(question)
    if zh and _zh_to_int(zh.group(1)):
        return "zh", _zh_to_int(zh.group(1))
    return (en.group(1), int(en.group(2))) if en else None


def _next_or_before(message: str) -> int:
    text = _normalise(message)
    if _ZH_NEXT.search(text) or _EN_NEXT.search(text):
        return 1
    return -1 if _ZH_BEFORE.search(text) or _EN_BEFORE.search(text) else 0


def _article_label(kind: str, number: int) -> str:
    return f"第{_int_to_zh(number)}条" if kind == "zh" else f"{kind} {number}"


_ZH_DIGITS = "零一二三四五六七八九"


def _zh_to_int(numeral: str) -> int:
    """十二 → 12, 三十七 → 37, 一百零五 → 105, 12 → 12; 0 for what is not a numeral."""
    if numeral.isdigit():
        return int(numeral)
    total, section = 0, 0
    for c in numeral.replace("两", "二").replace("〇", "零"):
        if c in _ZH_DIGITS:
            section = _ZH_DIGITS.index(c)
        elif c == "十":
            total, section = total + (section or 1) * 10, 0
        elif c == "百":
            total, section = total + section * 100, 0
        else:
            return 0
    return total + section


def _int_to_zh(n: int) -> str:
    if n <= 0 or n >= 1000:
        return str(max(n, 0))
    hundreds, rest = divmod(n, 100)
    tens, ones = divmod(rest, 10)
    out = f"{_ZH_DIGITS[hundreds]}百" if hundreds else ""
    if tens:
        out += f"{_ZH_DIGITS[tens]}十" if tens > 1 or hundreds else "十"  # 十二, 二十, 一百一十
    elif hundreds and ones:
        out += "零"
    return out + (_ZH_DIGITS[ones] if ones else "")


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
    previous = next((m.content for m in reversed(earlier) if m.role == "user" and m.content.strip()), "")
    after = earlier[max(i for i, m in enumerate(earlier) if m.role == "user") + 1:] if previous else []
    answer = next((m.content for m in after if m.role == "assistant"), "")
    if not follows_up(message, previous, answer):
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
