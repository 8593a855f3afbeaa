"""The offline extractive answerer: the default when no language model is configured.

It answers with the sentences of the retrieved passages that best support the question, each
followed by its citation ``[n]``, after a first line saying plainly that no language model is
configured. Sentences are scored by IDF-weighted lexical coverage of the question (jieba words
and character bigrams for Chinese, word stems for English; IDF over the passages' sentences).
Only sentences close to the best one are kept (at most three), in their original order: no
padding. A question in several parts (年假有几天？病假工资怎么算？) is scored part by part, and a
part no sentence supports is named as not covered (strict mode: with ``uncovered_text``).

Two ways to call it:

* ``answer(question, passages, uncovered_text)`` — direct, the answering layer's normal path
  for this provider (it gets the chosen quotes and citations back as data);
* ``stream(messages)`` — the ``ChatModel`` protocol: it reads the question and passages from the
  ``retrieved`` attachment of the last message that has one (``ChatMessage.retrieved``), never
  from prompt text, and yields the same answer as ``TextDelta`` lines.
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
from core.llm.text_match import (
    asks_quantity,
    has_cjk,
    normalize,
    idf,
    idf_table,
    looks_like_heading,
    split_sentences,
    states_quantity,
    strip_question_words,
    units,
    zh_words,
)

__all__ = ["ExtractiveAnswer", "ExtractiveAnswerer", "Passage", "Quote"]

_QUESTION_PARTS = re.compile(r"[？?！!；;。\n]+")
_QUANTITY_BONUS = 0.15  # a "how many" question prefers the sentence that states a number
_WORD_SHARE = 0.4  # weight of whole jieba words vs single characters in a Chinese score

_TEXT = {
    "zh": {
        "header": "未配置语言模型，以下回答直接摘录自知识库原文。",
        "none": "检索到的资料没有回答这个问题。",
        "part_missing": "关于「{part}」，检索到的资料没有涉及。",
        "part_uncovered": "关于「{part}」：{text}",
    },
    "en": {
        "header": "No language model is configured, so this answer quotes the knowledge base.",
        "none": "The retrieved passages do not answer this question.",
        "part_missing": "The retrieved passages do not cover “{part}”.",
        "part_uncovered": "On “{part}”: {text}",
    },
}


@dataclass(frozen=True)
class Quote:
    n: int  # the passage's citation number
    sentence: str
    score: float  # IDF-weighted share of the question's terms the sentence contains (plus bonus)


@dataclass
class ExtractiveAnswer:
    text: str
    quotes: list[Quote]
    answered: bool  # at least one sentence supports (part of) the question
    language: Literal["zh", "en"]
    uncovered_parts: list[str] = field(default_factory=list)

    @property
    def citations(self) -> list[int]:
        return sorted({q.n for q in self.quotes})


@dataclass
class _Sentence:
    order: tuple[int, int]  # (passage position, sentence position): original reading order
    n: int
    text: str  # as written, for the quote
    units: set[str]
    lowered: str  # normalize(text), for matching question words


class ExtractiveAnswerer:
    id = "extractive"

    def __init__(
        self,
        *,
        context_length: int = 8192,
        max_sentences: int = 3,
        min_score: float = 0.3,
        relative_cut: float = 0.7,
    ):
        self.context_length = context_length
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

    def answer(self, question: str, passages: list[Passage], uncovered_text: str | None = None) -> ExtractiveAnswer:
        lang: Literal["zh", "en"] = "zh" if has_cjk(question) else "en"
        words = _TEXT[lang]
        sentences = _sentences(passages)
        unit_idf = idf_table([s.units for s in sentences])

        parts = [p.strip() for p in _QUESTION_PARTS.split(question) if units(strip_question_words(p))]
        best_per_part: list[tuple[int, int] | None] = []  # key of each part's best sentence
        candidates: dict[tuple[int, int], Quote] = {}
        for part in parts:
            scored = self._score(part, sentences, unit_idf)
            best_per_part.append(scored[0][0] if scored else None)
            for key, quote in scored:
                if key not in candidates or candidates[key].score < quote.score:
                    candidates[key] = quote

        chosen = self._choose(best_per_part, candidates)
        quotes = [chosen[k] for k in sorted(chosen)]
        uncovered = [part for part, best in zip(parts, best_per_part) if best is None]

        lines = [words["header"]]
        if not quotes:
            lines.append(uncovered_text or words["none"])
            return ExtractiveAnswer("\n".join(lines), [], False, lang, uncovered)
        lines += _quote_lines(sorted(chosen), chosen, lang)
        for part in uncovered:
            shown = part.rstrip("？?！!。；;,，")
            if uncovered_text:
                lines.append(words["part_uncovered"].format(part=shown, text=uncovered_text))
            else:
                lines.append(words["part_missing"].format(part=shown))
        return ExtractiveAnswer("\n".join(lines), quotes, True, lang, uncovered)

    def _score(
        self, part: str, sentences: list[_Sentence], unit_idf: dict[str, float]
    ) -> list[tuple[tuple[int, int], Quote]]:
        """Sentences that support one question part, best first, already cut to the keepers."""
        topic = strip_question_words(part)
        n = len(sentences)
        unit_w = {u: unit_idf.get(u, idf(0, n)) for u in units(topic)}
        word_w = {w: idf(sum(w in s.lowered for s in sentences), n) for w in zh_words(topic)}
        quantity = asks_quantity(part)
        scored: list[tuple[tuple[int, int], Quote]] = []
        for s in sentences:
            hit = sum(w for u, w in unit_w.items() if u in s.units)
            if not hit:
                continue
            score = hit / sum(unit_w.values())
            if word_w:
                word_hit = sum(w for word, w in word_w.items() if word in s.lowered)
                score = (1 - _WORD_SHARE) * score + _WORD_SHARE * word_hit / sum(word_w.values())
            if quantity and states_quantity(s.text):
                score += _QUANTITY_BONUS
            if score >= self.min_score:
                scored.append((s.order, Quote(s.n, s.text, round(score, 4))))
        if not scored:
            return []
        scored.sort(key=lambda item: (-item[1].score, item[0]))
        best = scored[0][1].score
        return [item for item in scored if item[1].score >= best * self.relative_cut][: self.max_sentences]

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


def _quote_lines(keys: list[tuple[int, int]], chosen: dict[tuple[int, int], Quote], lang: str) -> list[str]:
    """One line per run of neighbouring sentences of one passage, each run followed by its [n]."""
    joiner = "" if lang == "zh" else " "
    lines: list[str] = []
    run: list[tuple[int, int]] = []
    for key in keys + [(-1, -1)]:  # a sentinel closes the last run
        if run and not (key[0] == run[-1][0] and key[1] == run[-1][1] + 1):
            text = joiner.join(chosen[k].sentence for k in run)
            lines.append(f"{text}{joiner}[{chosen[run[0]].n}]")
            run = []
        run.append(key)
    return lines


def _sentences(passages: list[Passage]) -> list[_Sentence]:
    """Candidate sentences of all passages; repeats (overlapping chunks) kept once, headings skipped."""
    seen: set[str] = set()
    out: list[_Sentence] = []
    for p_pos, passage in enumerate(passages):
        for s_pos, sentence in enumerate(split_sentences(passage.text)):
            key = re.sub(r"\s+", "", sentence)
            if key in seen or looks_like_heading(sentence):
                continue
            seen.add(key)
            found = units(sentence)
            if found:
                out.append(_Sentence((p_pos, s_pos), passage.n, sentence, found, normalize(sentence)))
    return out
