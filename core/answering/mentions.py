"""What a passage mentions: a question's named thing as written, inflected, in other words of the
same meaning, or in the other language (``PassageText.mentions``), for strict mode's judgement
(``answerable.py``). The meaning of words comes from dictionaries (``core/retrieval/bilingual.py``:
CC-CEDICT and WordNet) and, for foreign names no dictionary holds, their sound
(``core/retrieval/transliteration.py``); a name only as itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.answering.answer_types import value_spans
from core.answering.eras import eras
from core.answering.coverage import HAN_RUN, LATIN, digits_for_numerals, has_parts, in_order_within
from core.answering.reading import (AT_LEAST, AT_MOST, EN_NUMBER_WORD, EN_NUMBER_WORDS, MONTHS, TITLE_RUN, Term,
                                     american, canonical_unit, normalise, number_value, numbers, numbers_with_units,
                                     ranked_levels, same_unit, unit_at)
from core.retrieval.bilingual import base, has_chinese, lexicon, related_in, sense_matched, wordnet
from core.retrieval.transliteration import (NAME_KINDS, english_word, foreign_name, names_by_sound, sounds_like,
                                            transliterated)


# A lone numeral before a unit or measure word (五晚, 两天, 三次): a count the question gives.
_ZH_ONE_NUMERAL = {c: i for i, c in enumerate("零一二三四五六七八九十", start=0)} | {"两": 2}
_ZH_COUNT = re.compile(r"([一二三四五六七八九十两])(?=[晚夜天日月年周次个份张名人台件小分])")


def lone_numerals_as_digits(text: str) -> str:
    """A lone Chinese numeral before its unit or measure word as a digit (三年 is 3 年)."""
    return _ZH_COUNT.sub(lambda m: str(_ZH_ONE_NUMERAL[m.group(1)]), text)


@dataclass
class PassageText:
    """One passage (its text, heading path and file name) in the forms a term is looked up in."""

    raw: str
    text: str = ""
    chinese: bool = False
    stems: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    lines: list[str] = field(default_factory=list)
    _concepts: frozenset[str] | None = None
    _acronyms: frozenset[str] | None = None
    _capitalised: frozenset[str] | None = None

    def __post_init__(self) -> None:
        self.text = eras(digits_for_numerals(normalise(self.raw)))
        self.chinese = has_chinese(self.text)
        self.words = set(LATIN.findall(self.text))
        self.stems = {base(american(w)) for w in self.words}
        # numbers as digits: "three" and a lone numeral before its unit (三年 is 3 years)
        counted = lone_numerals_as_digits(self.text)
        self.lines = EN_NUMBER_WORD.sub(lambda m: str(EN_NUMBER_WORDS[m.group()]), counted).splitlines()

    @property
    def acronyms(self) -> frozenset[str]:
        """The initials of what the passage's Chinese words mean in a few words (英国 "United
        Kingdom": uk; 欧盟 "European Union": eu)."""
        if self._acronyms is None:
            lex = lexicon()
            self._acronyms = frozenset(
                "".join(w[0] for w in sense) for run in HAN_RUN.findall(self.text) for word in lex.words_in(run)
                for sense in lex.glosses(word)[:2] if 2 <= len(sense) <= 5) if self.chinese else frozenset()
        return self._acronyms

    @property
    def capitalised(self) -> frozenset[str]:
        """The passage's words written with a capital: the names a Chinese name may sound out."""
        if self._capitalised is None:
            self._capitalised = frozenset(_CAPITALISED_WORD.findall(self.raw))
        return self._capitalised

    @property
    def concepts(self) -> frozenset[str]:
        """English stems: the passage's English words, what its Chinese words mean, and the time of
        day a clock time is (12:00 is noon, 00:00 midnight)."""
        if self._concepts is None:
            self._concepts = (frozenset(self.stems) | (lexicon().concepts(self.text) if self.chinese else frozenset())
                              | frozenset(word for pattern, words in _CLOCK_TIMES if pattern.search(self.text)
                                          for word in words))
        return self._concepts

    def mentions(self, term: Term) -> bool:
        if term.verb and (not self.chinese or term.text in _RELATION_VERBS):
            # Across languages a verb is the relation, as English verbs are within English: the
            # dictionary's English for a Chinese verb rarely is the passage's verb (提交 / report).
            # Within Chinese a verb is what is done (提交, 缴纳) and must be said, except one that only
            # relates the things named (位于, 导致, 称为: the passage says it as 在, 造成, 叫作).
            return True
        if term.kind == "number":
            return self._has_number(float(term.text), term.forms[0] if term.forms else None)
        if term.kind == "value":  # an answer's number: the passage must state this very value
            return any(float(term.text) in numbers(line) for line in self.lines)
        if term.kind == "level":
            return any(level in term.forms for level, _ in ranked_levels(self.text))
        if term.kind == "unit":
            return any(f in self.text if has_chinese(f) or not f.isalpha() else related_in(f, self.concepts)
                       for f in term.forms)
        word = term.text
        if "&" in word:  # V&A: as written (NFKC makes a full-width ＆ one too)
            return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", self.text) is not None
        if HAN_RUN.fullmatch(word):
            return self._has_chinese_word(word) or (bool(term.forms) and self._has_chinese_word(term.forms[0]))
        form = base(word)
        if term.kind == "name" and not self.chinese:
            # a name is itself, not its dictionary synonyms: the Enterprise plan is not the Business one
            return word in self.words or form in self.stems or self._spells(word) or self._misspelt(word)
        if term.kind == "name":  # in Chinese text, as written or as the very word a headword means
            return (word in self.words or form in self.stems or form in self.concepts  # Shanghai: 上海, not Starter: 启动
                    or any(f in self.concepts for f in wordnet().same_name(word))  # Chinese: 中国 "China"
                    or (2 <= len(word) <= 5 and word in self.acronyms)  # UK: 英国 "United Kingdom"
                    # Huguenot: 胡格诺, a name the dictionary has no Chinese for
                    or (foreign_name(word) and names_by_sound(word, self.text))
                    # a given name a Chinese text leaves out, saying the surname (赫顿: James Hutton)
                    or (bool(term.forms) and self.mentions(Term(term.forms[0], "name"))))
        if related_in(form, self.stems) or word in self.stems or related_in(form, self.concepts) or self._spells(word):
            return True
        if self._misspelt(word):
            return True
        return (any(related_in(base(w), self.concepts) for w in wordnet().synonyms(form) | lexicon().synonyms(form))
                or self._says_phrase(form))

    def _says_phrase(self, word: str, parts: frozenset[str] | None = None) -> bool:
        """A synonym of several words said whole: factory is a "manufacturing plant"."""
        return any(all(related_in(base(w), self.concepts) for w in phrase) for phrase in wordnet().phrases(word, parts))

    def _spells(self, word: str) -> bool:
        """An acronym the passage writes out in capitalised words: EEA in "European Economic Area"
        (a two-letter one only as a run's very initials: EU, "European Union")."""
        if not (2 <= len(word) <= 6 and word.isalpha()):
            return False
        for run in TITLE_RUN.finditer(self.raw):
            initials = "".join(w[0] for w in run.group().split() if w[0].isupper()).lower()
            if word == initials or (len(word) > 2 and word in initials):
                return True
        return False

    def _misspelt(self, word: str) -> bool:
        """A long word one letter off a word of the passage (two for the longest): a typing slip
        ("buiding", "Carslbad"), not another word."""
        if len(word) < 6 or not word.isalpha():
            return False
        limit = 1 if len(word) < 9 else 2
        return any(abs(len(w) - len(word)) <= limit and _within_edits(word, w, limit) for w in self.words)

    def _has_chinese_word(self, word: str) -> bool:
        if self._has_chinese_word_meant(word):
            return True
        return self._sounds_out(word)  # also a Latin name inside a Chinese text or its heading

    def _sounds_out(self, word: str) -> bool:
        """A foreign name written by its sound (胡格诺: Huguenot), which the dictionary may not
        hold or may spell otherwise (忽必烈 "Khubilai": Kublai), with or without the kind of thing
        it names after it (胡格诺派: the Huguenots, 波兰人队: Polonia)."""
        lex = lexicon()

        def spelt_by_sound(name: str) -> bool:
            if transliterated(name):  # 胡格诺: not a word of the dictionary, or one of its names
                return not lex.glosses(name) or name in lex.names
            return name in lex.names and len(name) > 2  # 忽必烈: a name, long enough to tell apart

        names = (word, word[:-1]) if len(word) > 2 and word[-1] in NAME_KINDS else (word,)
        return any(spelt_by_sound(name) and any(sounds_like(name, w) for w in self.capitalised if not english_word(w))
                   for name in names)

    def _has_chinese_word_meant(self, word: str) -> bool:
        if word in self.text or in_order_within(word, self.text, 2 * len(word) + 1) or has_parts(word, self.text):
            return True
        if len(word) > 2 and word[-1] in "来去":  # 退回来 is 退回 with its direction: the verb carries the meaning
            stems = [word[:-1]] + ([word[:-2]] if len(word) > 3 and word[-2] in _DIRECTION_FIRST else [])
            return any(self._has_chinese_word_meant(stem) for stem in stems)
        lex = lexicon()
        # in an English passage a Chinese word is matched by half of a sense's words (出差: business
        # trip, in "business travel"); in Chinese, a synonym must say the sense (超速 / 限速: speed)
        lenient = not self.chinese
        senses = lex.glosses(word)
        if senses:
            if any(sense_matched(s, self.concepts, lenient) for s in senses):
                return True
            # a place said in its adjective (希腊 "Greece": a Greek island; 中国 "China": Chinese art)
            if lenient and any(f in self.words for s in senses[:3] if len(s) == 1 for f in wordnet().same_name(s[0])):
                return True
            # an English passage may say a one-word sense in a synonym of it (提醒 "remind", "warn":
            # an alert): WordNet's synonyms of the sense's word, as for an English question's words
            if lenient and any(related_in(base(w), self.concepts) for s in senses[:3] if len(s) == 1
                               for w in wordnet().synonyms(s[0], _NAMING_PARTS)):
                return True
            if lenient and any(self._says_phrase(s[0], _NAMING_PARTS) for s in senses[:3] if len(s) == 1):
                return True
            # a proper name's initials (英国 "United Kingdom": the UK; 欧盟: the EU)
            return lenient and word in lex.names and any(
                "".join(w[0] for w in s) in self.words for s in senses[:2] if 2 <= len(s) <= 5)
        # not a headword (朋友家, 餐补): each of its dictionary words must be meant by the passage, a
        # single character written there (its senses are too many to go by: 脸 is "face" and 面向
        # "to face")
        pieces = _pieces(word, lex)
        return bool(pieces) and all(
            p in self.text or ((len(p) > 1 or lenient)
                               and any(sense_matched(s, self.concepts, lenient) for s in lex.glosses(p)[:3]))
            for p in pieces)

    def _has_number(self, value: float, unit: str | None) -> bool:
        """The value on a line of the passage, or inside a range or beyond a bound it states on
        one line in the same unit ("uptime of 97%" in "95.0% to 99.0%", "3,000 euros" under
        "above 2,500 EUR"; 5 days is not "within 24 hours")."""
        month = MONTHS[int(value) - 1] if canonical_unit(unit or "") == "month" and value in range(1, 13) else None
        # a table row's cells are separate statements: 99.0% in one cell and 10% in the next are no range
        for line in (cell for row in self.lines for cell in row.split("|")):
            stated = numbers_with_units(line)
            if any(v == value for v, _ in stated) or (month and re.search(rf"\b{month}", line)):
                return True  # 十二月 is December
            # a bare number (双十一's 11) is not placed inside a bare range or under a bare bound:
            # nothing says they count the same thing
            same = [v for v, u in stated if same_unit(unit, u) and (_known_unit(unit) or _known_unit(u))]
            if len(same) >= 2 and any(a < value < b or b < value < a for a, b in zip(same, same[1:])):
                return True
            for pattern, beyond in ((AT_LEAST, lambda bound: value >= bound), (AT_MOST, lambda bound: value <= bound)):
                for m in pattern.finditer(line):
                    bound = number_value(m.group(1) or m.group(2) or "")
                    after = unit_at(line, m.end(1) if m.group(1) else m.end(2))
                    if bound is not None and beyond(bound) and same_unit(unit, after) and (_known_unit(unit) or _known_unit(after)):
                        return True
        return False


_CAPITALISED_WORD = re.compile(r"\b[A-Z][^\W\d_]+")

# A clock time that is a time of day by name: "before 12:00" is before noon (中午 "noon"), "by 24:00" midnight.
_CLOCK_TIMES = (
    (re.compile(r"(?<![\d:.])12[:.]00(?![\d:])|(?<!\d)12\s*(?:pm|p\.m\.)", re.I), ("noon", "midday")),
    (re.compile(r"(?<![\d:.])(?:00|24|0)[:.]00(?![\d:])|(?<!\d)12\s*(?:am|a\.m\.)", re.I), ("midnight",)),
)

# Chinese verbs that relate what a question names rather than name an act (XQuAD tune, zh→zh).
_RELATION_VERBS = frozenset("导致 用于 获得 使用 称为 处于 属于 位于 成为 得到 利用 意味着 叫做 被称为 造成 引起 拥有 具有".split())


def _known_unit(unit: str | None) -> bool:
    """Whether ``unit`` is a unit of measure or money (kg, 天, %, EUR), not any word after a number
    (期 in 十一期间, "by" before 15:00)."""
    return bool(unit) and any(value_spans(f"2 {unit}", kind) for kind in _MEASURES)


_NAMING_PARTS = frozenset({"noun", "verb"})  # a gloss's adjective senses drift: goods -> good -> "in full"
_MEASURES = ("money", "duration", "length", "weight", "percentage")


# Resultative complements: 送到 is 送 done, 锁住 is 锁 holding; the verb carries the meaning.
_COMPLEMENTS = frozenset("到住给完好掉上下出进回过起开成走来去")
# A directional complement (来, 去, 回来, 出去…) after a verb of two characters or more (退回来, 交上来).
_DIRECTION_FIRST = frozenset("上下进出回过起开")


def _within_edits(a: str, b: str, limit: int) -> bool:
    """Levenshtein distance of a and b at most ``limit`` (a band of the table only)."""
    if a == b:
        return True
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
        if min(current) > limit:
            return False
        previous = current
    return previous[-1] <= limit


_NOUN_SUFFIXES = frozenset("品物者性")


def _pieces(word: str, lex) -> list[str]:
    """A word the dictionary lacks, cut into its longest dictionary words, left to right (a verb's
    resultative complement dropped: 送到 → 送)."""
    if len(word) == 2 and word[1] in _COMPLEMENTS:
        return [word[0]]
    if len(word) > 2 and word[-1] in _NOUN_SUFFIXES and lex.glosses(word[:-1]):
        return [word[:-1]]  # 收藏品: what is collected, a collection; the suffix only makes it a noun
    out, i = [], 0
    while i < len(word):
        for j in range(len(word), i, -1):
            if lex.glosses(word[i:j]) or j == i + 1:
                if j > i + 1 or lex.glosses(word[i:j]):
                    out.append(word[i:j])
                i = j
                break
    return out
