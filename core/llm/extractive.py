"""The offline extractive answerer: the default when no language model is configured.

It answers with the parts of the retrieved passages that best support the question, each
followed by its citation, after a first line saying plainly that no language model is configured.
What it can quote (``quotable.py``): whole sentences (soft PDF line breaks joined first), a
sentence that introduces a list together with its items up to the end of the list, and table
rows with their header row. Units are scored by IDF-weighted lexical coverage of the question
(content characters and jieba words for Chinese, word stems for English), plus a bonus when the
unit states the kind of fact asked for (a duration for "how long", an organ or role for "who",
the 施行 sentence for "when does it take effect", a document for "what document", a list for
"which ones"). Only units close to the best one are kept (at most three), in reading order: no
padding; and a unit that matches only part of what the best one matches (parental leave beside the
annual-leave article that answers) says less about the question, so it is not appended. In a FAQ
the question of a pair is matched with its answer and the answer is quoted (``quotable.py``). A question in several parts (年假有几天？病假工资怎么算？) is scored part by part, and a
part nothing supports is named as not covered (strict mode: with ``uncovered_text``).

Citations are numbered [1], [2]... in the order they first appear in the answer, whatever the
passages' own numbers; ``ExtractiveAnswer.sources`` maps each back to its passage. The first
line names where the quoted passages come from (``Passage.origin``): the knowledge base, web
pages, the files attached to the chat.

Two ways to call it:

* ``answer(question, passages, uncovered_text)`` — direct, the answering layer's normal path
  for this provider (it gets the chosen quotes and citations back as data);
* ``stream(messages)`` — the ``ChatModel`` protocol: it reads the question and passages from the
  ``retrieved`` attachment of the last message that has one (``ChatMessage.retrieved``), never
  from prompt text, and yields the same answer as ``TextDelta`` lines.  Its ``[k]`` are the answer's own
  consecutive numbers, not the passages': a caller that lists citations uses ``answer()``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Literal

from core.llm.base import (
    ChatEvent,
    ChatMessage,
    Done,
    Passage,
    RetrievedContext,
    TextDelta,
    ToolSpec,
    approx_token_count,
)
from core.llm.quotable import QuoteUnit, quote_units, table_rule
from core.llm.text_match import (
    answer_kinds,
    asks_list,
    asks_quantity,
    has_cjk,
    idf,
    idf_table,
    looks_like_heading,
    normalize,
    states_quantity,
    strip_question_words,
    units,
    zh_words,
)

__all__ = ["ExtractiveAnswer", "ExtractiveAnswerer", "Passage", "Quote"]

_QUESTION_PARTS = re.compile(r"[？?！!；;。\n]+")
_QUANTITY_BONUS = 0.15  # a "how many" question prefers the sentence that states a number
_LIST_BONUS = 0.15  # a "which ones" question prefers the sentence that introduces a list
_WORD_SHARE = 0.4  # weight of whole jieba words vs single characters in a Chinese score

_TEXT = {
    "zh": {
        "header": "未配置语言模型，以下回答直接摘录自{where}原文。",
        "none": "检索到的资料没有回答这个问题。",
        "part_missing": "关于「{part}」，检索到的资料没有涉及。",
        "part_uncovered": "关于「{part}」：{text}",
    },
    "en": {
        "header": "No language model is configured, so this answer quotes {where}.",
        "none": "The retrieved passages do not answer this question.",
        "part_missing": "The retrieved passages do not cover “{part}”.",
        "part_uncovered": "On “{part}”: {text}",
    },
}


_PLACE_OF_ORIGIN = {"kb": "kb", "url": "web", "web": "web", "attachment": "attachment"}
_PLACES = {"zh": {"kb": "知识库", "web": "网页", "attachment": "对话附件"},
           "en": {"kb": "the knowledge base", "web": "web pages", "attachment": "the files attached to this chat"}}


def lead_in(lang: Literal["zh", "en"], origins: list[str]) -> str:
    """The first line of an answer: no language model, and where the quotes come from."""
    names = _PLACES[lang]
    places = [names[p] for p in names if p in {_PLACE_OF_ORIGIN[o] for o in origins}] or [names["kb"]]
    sep, last = ("、", "和") if lang == "zh" else (", ", " and ")
    where = places[0] if len(places) == 1 else sep.join(places[:-1]) + last + places[-1]
    return _TEXT[lang]["header"].format(where=where)


@dataclass(frozen=True)
class Quote:
    n: int  # the number of the passage it comes from, as given
    sentence: str  # what is quoted: a sentence; a list's lead with its items; a table row with its header
    score: float  # IDF-weighted share of the question's terms the unit contains (plus bonuses)


@dataclass
class ExtractiveAnswer:
    text: str
    quotes: list[Quote]
    answered: bool  # at least one unit supports (part of) the question
    language: Literal["zh", "en"]
    uncovered_parts: list[str] = field(default_factory=list)
    sources: list[int] = field(default_factory=list)  # the text's [k] cites the passage numbered sources[k-1]

    @property
    def citations(self) -> list[int]:
        """The cited passages' own numbers, in the order the answer cites them ([1], [2], ...)."""
        return list(self.sources)


@dataclass
class _Sentence:
    order: tuple[int, int]  # (passage position, unit position): original reading order
    n: int
    text: str  # the unit as written
    units: set[str]
    lowered: str  # normalize(match text), for matching question words
    unit: QuoteUnit


class ExtractiveAnswerer:
    id = "extractive"
    quotes_only = True  # not a language model: it quotes the passages it is given

    def __init__(
        self,
        *,
        context_length: int = 8192,
        max_sentences: int = 3,
        min_score: float = 0.3,
        relative_cut: float = 0.7,
        max_quote_chars: int = 1200,
    ):
        self.context_length = context_length
        self.max_quote_chars = max_quote_chars  # a list quoted with its items stops here (rag_max_content_chars)
        self.max_sentences = max_sentences
        self.min_score = min_score  # below this share of the question's weight a sentence does not support it
        self.relative_cut = relative_cut  # keep only sentences within this fraction of the best one

    # ------------------------------------------------------------ ChatModel protocol

    def count_tokens(self, text: str) -> int:
        return approx_token_count(text)

    def check(self) -> str:
        return "No language model configured: answers quote the knowledge base (extractive answerer, works offline)."

    def stream(self, messages: list[ChatMessage], tools: list[ToolSpec] | None = None) -> Iterator[ChatEvent]:
        # Tools are ignored: this answerer cannot call them, it only quotes what it was given.
        context = next((m.retrieved for m in reversed(messages) if m.retrieved is not None), None)
        if context is None:
            question = next((m.content for m in reversed(messages) if m.role == "user"), "")
            context = RetrievedContext(question=question, passages=[])
        result = self.answer(context.question, context.passages, context.uncovered_text)
        lines = result.text.split("\n")
        for i, line in enumerate(lines):
            yield TextDelta(line + ("\n" if i < len(lines) - 1 else ""))
        yield Done("stop", None)

    # ------------------------------------------------------------ answering

    def answer(self, question: str, passages: list[Passage], uncovered_text: str | None = None,
               evidence: dict[int, str] | None = None, lead: str | None = None) -> ExtractiveAnswer:
        """``evidence``: passage number -> the sentence or table row already judged to answer the
        question (strict mode, ``core/answering/answerable.py``, which reads meaning across
        languages where word overlap cannot): it is quoted, and nothing else."""
        lang: Literal["zh", "en"] = "zh" if has_cjk(question) else "en"
        words = _TEXT[lang]
        per_passage = [quote_units(text) for text in _stitched([p.text for p in passages])]
        chosen = _evidence_units(evidence or {}, passages, per_passage)
        uncovered: list[str] = []
        if not chosen:
            sentences = _sentences(passages, per_passage)
            unit_idf = idf_table([s.units for s in sentences])
            parts = [p.strip() for p in _QUESTION_PARTS.split(question) if units(strip_question_words(p))]
            best_per_part: list[tuple[int, int] | None] = []  # key of each part's best unit
            candidates: dict[tuple[int, int], Quote] = {}
            for part in parts:
                scored = self._score(part, sentences, unit_idf)
                best_per_part.append(scored[0][0] if scored else None)
                for key, quote in scored:
                    if key not in candidates or candidates[key].score < quote.score:
                        candidates[key] = quote
            chosen = self._choose(best_per_part, candidates)
            uncovered = [part for part, best in zip(parts, best_per_part) if best is None]

        if not chosen:
            lines = [lead_in(lang, [p.origin for p in passages]), uncovered_text or words["none"]]
            return ExtractiveAnswer("\n".join(lines), [], False, lang, uncovered)
        lines: list[str] = []
        spans = _spans(sorted(chosen), per_passage)
        quotes = [Quote(chosen[k].n, _render(_span_of(k, per_passage), per_passage[k[0]], lang, self.max_quote_chars),
                        chosen[k].score) for k in sorted(chosen)]
        sources: list[int] = []
        for p_pos, indices in spans:
            n = passages[p_pos].n
            if n not in sources:
                sources.append(n)
            text = _render(indices, per_passage[p_pos], lang, self.max_quote_chars)
            label = f"[{sources.index(n) + 1}]"
            # A table ends at its last row: the citation goes below it, or it would become a cell.
            lines.append(f"{text}\n\n{label}" if per_passage[p_pos][indices[-1]].kind == "row"
                         else f"{text}{'' if lang == 'zh' else ' '}{label}")
        for part in uncovered:
            shown = part.rstrip("？?！!。；;,，")
            if uncovered_text:
                lines.append(words["part_uncovered"].format(part=shown, text=uncovered_text))
            else:
                lines.append(words["part_missing"].format(part=shown))
        origin = {p.n: p.origin for p in passages}
        lines.insert(0, lead or lead_in(lang, [origin[n] for n in sources]))
        return ExtractiveAnswer("\n".join(lines), quotes, True, lang, uncovered, sources)

    def _score(
        self, part: str, sentences: list[_Sentence], unit_idf: dict[str, float]
    ) -> list[tuple[tuple[int, int], Quote]]:
        """Sentences that support one question part, best first, already cut to the keepers."""
        topic = strip_question_words(part)
        n = len(sentences)
        unit_w = {u: unit_idf.get(u, idf(0, n)) for u in units(topic)}
        word_w = {w: idf(sum(w in s.lowered for s in sentences), n) for w in zh_words(topic)}
        quantity = asks_quantity(part)
        kinds = answer_kinds(part)
        wants_list = asks_list(part)
        scored: list[tuple[tuple[int, int], Quote]] = []
        matched: dict[tuple[int, int], set[str]] = {}
        for s in sentences:
            matched[s.order] = {u for u in unit_w if u in s.units}
            hit = sum(unit_w[u] for u in matched[s.order])
            if not hit:
                continue
            score = hit / sum(unit_w.values())
            if word_w:
                word_hit = sum(w for word, w in word_w.items() if word in s.lowered)
                score = (1 - _WORD_SHARE) * score + _WORD_SHARE * word_hit / sum(word_w.values())
            if quantity and states_quantity(s.text):
                score += _QUANTITY_BONUS
            if score < self.min_score:
                continue
            # The kind of fact asked for reorders the units that already support the question.
            score += sum(k.bonus for k in kinds if k.states.search(s.lowered))
            if wants_list and s.unit.is_lead:
                score += _LIST_BONUS
            scored.append((s.order, Quote(s.n, s.text, round(score, 4))))
        if not scored:
            return []
        scored.sort(key=lambda item: (-item[1].score, item[0]))
        if wants_list and next(s for s in sentences if s.order == scored[0][0]).unit.is_lead:
            return scored[:1]  # "which ones?" answered by a whole list: nothing else is needed
        best_key, best = scored[0][0], scored[0][1].score
        by_key = {s.order: s for s in sentences}
        top = by_key[best_key]
        answers = (quantity and states_quantity(top.text)) or any(k.states.search(top.lowered) for k in kinds)

        def padding(key: tuple[int, int]) -> bool:
            # The best unit states the fact asked for: a unit of another paragraph matching a strict
            # part of what it matches is about something else (parental leave beside annual leave).
            other = by_key[key]
            return (answers and matched[key] < matched[best_key]
                    and (other.order[0], other.unit.line) != (top.order[0], top.unit.line))

        return [item for item in scored if item[1].score >= best * self.relative_cut and not padding(item[0])
                ][: self.max_sentences]

    def _choose(
        self, best_per_part: list[tuple[int, int] | None], candidates: dict[tuple[int, int], Quote]
    ) -> dict[tuple[int, int], Quote]:
        """Every covered part's best sentence first, then the strongest others up to the limit."""
        chosen: dict[tuple[int, int], Quote] = {}
        for key in best_per_part:
            if key is not None:
                chosen[key] = candidates[key]
        limit = max(self.max_sentences, len(chosen))
        for key, quote in sorted(candidates.items(), key=lambda kv: (-kv[1].score, kv[0])):
            if len(chosen) >= limit:
                break
            # A chunk-boundary fragment of a sentence already quoted adds nothing.
            if key not in chosen and not any(quote.sentence in q.sentence for q in chosen.values()):
                chosen[key] = quote
        return chosen


def _evidence_units(evidence: dict[int, str], passages: list[Passage],
                    per_passage: list[list[QuoteUnit]]) -> dict[tuple[int, int], Quote]:
    """The quote units of each passage that make up its evidence text (a sentence is a unit or
    holds some; a table row is matched with its own line)."""
    chosen: dict[tuple[int, int], Quote] = {}
    for p_pos, passage in enumerate(passages):
        text = evidence.get(passage.n)
        if not text:
            continue
        flat = re.sub(r"\s+", "", text)
        for u_pos, unit in enumerate(per_passage[p_pos]):
            body = re.sub(r"\s+", "", unit.text)
            if body and (body in flat or (len(flat) >= 8 and flat in body)):
                chosen[(p_pos, u_pos)] = Quote(passage.n, unit.text, 1.0)
    return chosen


_OVERLAP_MIN = 16  # characters two neighbouring chunks must share to be recognised as such
_SENTENCE_DONE = re.compile(r"[。！？!?；;.…][”」』）)\]\"']*\s*$")
_FIRST_END = re.compile(r"[。！？!?]|\.(?=\s|$)")


def _stitched(texts: list[str]) -> list[str]:
    """Each text whose last sentence was cut at a chunk boundary, completed from the retrieved
    chunk that continues it (neighbouring chunks share their overlap): a quote is a whole sentence."""
    out = list(texts)
    for i, text in enumerate(texts):
        if _SENTENCE_DONE.search(text):
            continue
        for j, other in enumerate(texts):
            size = _overlap(text, other) if j != i else 0
            if size:
                rest = other[size:]
                end = _FIRST_END.search(rest)
                out[i] = text + (rest[: end.end()] if end else rest)
                break
    return out


def _overlap(text: str, following: str) -> int:
    """Length of the longest end of ``text`` that ``following`` starts with (0 below the minimum)."""
    for size in range(min(len(text), len(following), 300), _OVERLAP_MIN - 1, -1):
        if text.endswith(following[:size]):
            return size
    return 0


def _span_of(key: tuple[int, int], per_passage: list[list[QuoteUnit]]) -> list[int]:
    """The units one chosen unit is quoted with: a lead with its items, an item after its lead."""
    unit = per_passage[key[0]][key[1]]
    if unit.answer:  # a FAQ question: its answer is what is quoted
        return _grown(unit.answer, per_passage[key[0]])
    if unit.is_lead:
        return [key[1], *unit.items]
    if unit.lead is not None:
        return [unit.lead, key[1]]
    return [key[1]]


def _grown(indices: list[int], units_of_passage: list[QuoteUnit]) -> list[int]:
    """Units with the items of any list they introduce."""
    return sorted({j for i in indices for j in (i, *units_of_passage[i].items)})


def _spans(keys: list[tuple[int, int]], per_passage: list[list[QuoteUnit]]) -> list[tuple[int, list[int]]]:
    """Chosen units grown to what they are quoted with, merged when they overlap or touch."""
    spans: list[tuple[int, list[int]]] = []
    for key in keys:
        indices = _span_of(key, per_passage)
        if spans and spans[-1][0] == key[0] and indices[0] <= spans[-1][1][-1] + 1:
            merged = sorted(set(spans[-1][1]) | set(indices))
            spans[-1] = (key[0], merged)
        else:
            spans.append((key[0], indices))
    return spans


def _render(indices: list[int], units_of_passage: list[QuoteUnit], lang: str, max_chars: int) -> str:
    """The quoted text of some units of one passage: sentences of one line run on, items and
    table rows keep their own lines (a table gets its header row back), within ``max_chars``."""
    out = ""
    prev: QuoteUnit | None = None
    for i in indices:
        unit = units_of_passage[i]
        if unit.kind == "row" and unit.header and (prev is None or prev.kind != "row" or prev.header != unit.header):
            piece = f"{unit.header}\n{table_rule(unit.header)}\n{unit.text}"
        else:
            piece = unit.text
        if prev is None:
            sep = ""
        elif prev.line == unit.line and unit.kind == prev.kind == "sentence":
            sep = "" if lang == "zh" else " "
        else:
            sep = "\n"
        if out and len(out) + len(sep) + len(piece) > max_chars:
            return out + sep + "…"
        out += sep + piece
        prev = unit
    return out


def _sentences(passages: list[Passage], per_passage: list[list[QuoteUnit]]) -> list[_Sentence]:
    """Candidate units of all passages; repeats (overlapping chunks) kept once, headings skipped."""
    seen: set[str] = set()
    out: list[_Sentence] = []
    for p_pos, (passage, found_units) in enumerate(zip(passages, per_passage)):
        for u_pos, unit in enumerate(found_units):
            key = re.sub(r"\s+", "", unit.text)
            if key in seen or (unit.kind == "sentence" and not unit.is_lead and looks_like_heading(unit.text)):
                continue
            seen.add(key)
            found = units(unit.match)
            if found:
                out.append(_Sentence((p_pos, u_pos), passage.n, unit.text, found, normalize(unit.match), unit))
    return out


def _make(settings, own) -> ExtractiveAnswerer:
    return ExtractiveAnswerer(context_length=settings.context_length)


def _register() -> None:
    from core.llm.providers import ChatProvider, register_provider

    register_provider(ChatProvider("extractive", _make, quotes_only=True))


_register()
