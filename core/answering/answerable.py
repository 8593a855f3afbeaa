"""Does a passage answer the question? Strict mode's judgement, by meaning and across languages.

A passage that passes the score threshold is about the question's topic; it answers the question
only when it speaks of *what the question names* and states *the kind of value asked for*. A near
miss — interns where the handbook speaks of employees, a motorbike where the policy covers a car,
the Developer plan where the SLA lists three others — scores like a covered question, so no
threshold separates them; the named thing the passage lacks does.

So a question is read into (``read_question``):

* **named things** — nouns, names, numbers, Chinese content words (实习生, motorbike, MySQL, 30):
  each must be in one passage, as written, inflected, in other words of the same meaning, or in the
  other language (``PassageText.mentions``; the meaning of words comes from a dictionary,
  ``core/retrieval/bilingual.py``, because embedding similarity does not tell a synonym from a
  sibling);
* **what is asked for** — question words and attribute words (how many, 多久, cap, rate, 上限,
  租金): not looked for as words; the passage must state a value of that kind
  (``answer_types.py``);
* **the framing** — English verbs, adjectives and adverbs, Chinese function words, "each", "per",
  每个: excused (``word_class.py``), because they relate what is named rather than name it;
  frequencies ("each year", 每月, monthly) need only their unit (year, 月).

``judge`` looks for one passage that mentions every named thing and states the value asked for:
two passages that each mention half of the question answer neither half (the interns of one
paragraph are not the leave of another). A number the question gives must be in that passage, or
inside a range it states on one line ("uptime of 97%" inside "95.0% to 99.0%").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from core.answering.answer_types import Wanted, asked_for, attribute_kind, states
from core.answering.coverage import (
    _HAN_RUN,
    _LATIN,
    _digits_for_numerals,
    _en_term,
    _has_parts,
    _in_order_within,
    _tokens,
    _zh_term,
)
from core.answering.word_class import names_something
from core.retrieval.bilingual import has_chinese, lexicon, sense_matched
from core.retrieval.bm25 import _stem

# Words that only frame a question ("each", "per", 每个): they name nothing a passage must say.
# Comparisons ("more than six hours", 超过) and currencies (euros for EUR, 元) frame a value too.
_EN_FRAME = frozenset("each every per single certain specific exact particular usually normally typically "
                      "currently still ever already else besides more less fewer least most over under above "
                      "below than exceeding beyond euro euros eur yuan rmb cny dollar dollars usd".split())
_ZH_FRAME = frozenset("每个 每位 每名 每项 每一 各个 各位 各项 一般 通常 目前 现在 大概 大约 左右 以上 以下 其他 之内 以内 "
                      "超过 不超过 不少于 不低于 至少 最多 人民币 欧元 美元".split())
# A frequency names its unit: "each year", "yearly", 每年 are answered by "per calendar year", 每个自然年.
_EN_FREQUENCY = {"daily": "day", "weekly": "week", "monthly": "month", "yearly": "year", "annual": "year",
                 "annually": "year", "nightly": "night", "hourly": "hour", "quarterly": "quarter"}
_ZH_UNIT = {"年": ("年", "year"), "月": ("月", "month"), "天": ("天", "日", "day"), "日": ("日", "天", "day"),
            "晚": ("晚", "夜", "night"), "周": ("周", "星期", "week"), "次": ("次", "time"), "人": ("人", "person")}
# a number on its own, not a model or level name's digits (P2, L7, 5G keep theirs)
_NUMBER = re.compile(r"(?<![a-z\d.,])\d+(?:[.,]\d+)*(?![a-z\d])")
_EN_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
                    "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100}
_EN_NUMBER_WORD = re.compile(r"\b(" + "|".join(_EN_NUMBER_WORDS) + r")\b")


@dataclass(frozen=True)
class Term:
    text: str  # as the question writes it (normalised); a number as digits
    kind: str  # "number" | "word" | "unit" (a frequency: any of ``forms`` answers it)
    forms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Question:
    text: str
    named: tuple[Term, ...]  # what a passage must mention
    wanted: Wanted | None  # the kind of value asked for
    framing: tuple[str, ...] = ()  # words read as framing (excused), for the record


@dataclass(frozen=True)
class Judgement:
    answerable: bool
    passage: int | None  # the passage (index into those judged) that answers, or the nearest one
    missing: tuple[str, ...]  # what the nearest passage lacks (empty when answerable)
    no_value: bool = False  # the nearest passage mentions everything but states no value of the kind asked
    question: Question | None = None


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _numbers(text: str) -> list[float]:
    out = []
    for m in _NUMBER.finditer(text):
        raw = m.group().replace(",", "")
        try:
            out.append(float(raw))
        except ValueError:
            continue
    return out


def read_question(question: str) -> Question:
    """The question's named things, what it asks for and its framing words."""
    named: list[Term] = []
    framing: list[str] = []
    wanted = asked_for(question)
    flat = _norm(question)
    for value in _numbers(_EN_NUMBER_WORD.sub(lambda m: str(_EN_NUMBER_WORDS[m.group()]), _digits_for_numerals(flat))):
        named.append(Term(f"{value:g}", "number"))
    for token in _tokens(question):
        if _LATIN.fullmatch(token):
            if token.isdigit() or _en_term(token) is None or token in _EN_NUMBER_WORDS:
                continue
            if token in _EN_FRAME:
                framing.append(token)
            elif token in _EN_FREQUENCY:
                named.append(Term(token, "unit", (_EN_FREQUENCY[token], _ZH_UNIT.get(_EN_FREQUENCY[token][0], ("",))[0])))
            elif attribute_kind(token):
                wanted = wanted or attribute_kind(token)
                framing.append(token)
            elif not names_something(question, token):
                framing.append(token)
            else:
                named.append(Term(token, "word"))
            continue
        for part in _HAN_RUN.findall(token):
            word = _zh_term(part)
            if word is None:
                continue
            if word in _ZH_FRAME:
                framing.append(word)
            elif word.startswith("每") and len(word) == 2 and word[1] in _ZH_UNIT:
                named.append(Term(word, "unit", _ZH_UNIT[word[1]]))
            elif attribute_kind(word):
                wanted = wanted or attribute_kind(word)
                framing.append(word)
            elif not names_something(question, word):
                framing.append(word)
            else:
                named.append(Term(word, "word"))
    unique = list({(t.text, t.kind): t for t in named}.values())
    return Question(question, tuple(unique), wanted, tuple(dict.fromkeys(framing)))


@dataclass
class PassageText:
    """One passage (its text, heading path and file name) in the forms a term is looked up in."""

    raw: str
    text: str = ""
    chinese: bool = False
    stems: set[str] = field(default_factory=set)
    lines: list[list[float]] = field(default_factory=list)
    _concepts: frozenset[str] | None = None

    def __post_init__(self) -> None:
        self.text = _digits_for_numerals(_norm(self.raw))
        words = _EN_NUMBER_WORD.sub(lambda m: str(_EN_NUMBER_WORDS[m.group()]), self.text)
        self.chinese = has_chinese(self.text)
        self.stems = {_stem(w) for w in _LATIN.findall(self.text)}
        self.lines = [_numbers(line) for line in words.splitlines()]

    @property
    def concepts(self) -> frozenset[str]:
        """English stems: the passage's English words and what its Chinese words mean."""
        if self._concepts is None:
            self._concepts = frozenset(self.stems) | (lexicon().concepts(self.text) if self.chinese else frozenset())
        return self._concepts

    def mentions(self, term: Term) -> bool:
        if term.kind == "number":
            return self._has_number(float(term.text))
        if term.kind == "unit":
            return any(f and (f in self.text if has_chinese(f) else _stem(f) in self.concepts) for f in term.forms)
        word = term.text
        if _HAN_RUN.fullmatch(word):
            return self._has_chinese_word(word)
        return _stem(word) in self.stems or word in self.stems or _stem(word) in self.concepts

    def _has_chinese_word(self, word: str) -> bool:
        if word in self.text or _in_order_within(word, self.text, 2 * len(word) + 1) or _has_parts(word, self.text):
            return True
        lex = lexicon()
        senses = lex.glosses(word)
        if senses:
            return any(sense_matched(s, self.concepts) for s in senses)
        # not a headword (朋友家, 餐补): each of its dictionary words must be meant by the passage
        pieces = _pieces(word, lex)
        return bool(pieces) and all(p in self.text or any(sense_matched(s, self.concepts) for s in lex.glosses(p))
                                    for p in pieces)

    def _has_number(self, value: float) -> bool:
        for numbers in self.lines:
            if value in numbers:
                return True
            # a value inside a range the passage states on one line ("95.0% to 99.0%")
            if len(numbers) >= 2 and any(a < value < b for a, b in zip(numbers, numbers[1:])):
                return True
        return False


def _pieces(word: str, lex) -> list[str]:
    """A word the dictionary lacks, cut into its longest dictionary words, left to right."""
    out, i = [], 0
    while i < len(word):
        for j in range(len(word), i, -1):
            if lex.glosses(word[i:j]) or j == i + 1:
                if j > i + 1 or lex.glosses(word[i:j]):
                    out.append(word[i:j])
                i = j
                break
    return out


def judge(question: Question, passages: list[str]) -> Judgement:
    """The first passage (in the order given: best first) that mentions every named thing of the
    question and states the value asked for; otherwise the nearest one and what it lacks."""
    best: tuple[int, int, tuple[str, ...], bool] | None = None  # (-missing count, index, missing, no value)
    for i, raw in enumerate(passages):
        passage = PassageText(raw)
        missing = tuple(t.text for t in question.named if not passage.mentions(t))
        no_value = question.wanted is not None and not states(passage.text, question.wanted)
        if not missing and not no_value:
            return Judgement(True, i, (), False, question)
        rank = (len(missing) + no_value, i)
        if best is None or rank < (best[0], best[1]):
            best = (rank[0], i, missing, no_value and not missing)
    if best is None:
        return Judgement(False, None, tuple(t.text for t in question.named), False, question)
    return Judgement(False, best[1], best[2], best[3], question)
