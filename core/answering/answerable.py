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
  ``core/retrieval/bilingual.py``: embedding similarity does not tell a synonym from a sibling);
* **what is asked for** — question words and attribute words (how many, 多久, cap, price, 上限,
  租金): not looked for as words; the passage must state a value of that kind
  (``answer_types.py``: a price needs an amount of money, a weight a weight);
* **the framing** — English verbs, adjectives and adverbs, Chinese function words and modal verbs,
  "each", "per", "more than", 每个, currencies: excused (``word_class.py``), because they relate
  what is named rather than name it; a frequency ("each year", 每月, monthly) needs only its unit,
  a unit word (days, metres, 小时) its unit in either language.

``judge`` looks for one passage that mentions every named thing and states the value asked for:
two passages that each mention half of the question answer neither half (the interns of one
paragraph are not the leave of another). A number the question gives must be in that passage, or
inside what it states on one line: a range ("uptime of 97%" in "95.0% to 99.0%") or a bound
("3,000 euros" under "above 2,500 EUR").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from core.answering.answer_types import Wanted, asked_for, attribute_kind, more_specific, states, value_spans
from core.answering.coverage import HAN_RUN, LATIN, digits_for_numerals, en_term, has_parts, in_order_within, zh_term
from core.answering.word_class import _zh_tagger, names_something
from core.retrieval.bilingual import base, has_chinese, lexicon, related_in, sense_matched, wordnet
from core.retrieval.bm25 import _jieba_tokenizer

# Words that only frame a question: they name nothing a passage must say.
_EN_FRAME = frozenset(
    "each every per single certain specific exact particular usually normally typically currently still ever "
    "already else besides more less fewer least most over under above below than exceeding beyond this these "
    "that those such any euro euros eur yuan rmb cny dollar dollars usd up down out off back away".split())
# Function words lemminflect's lexicon does not hold (so they would read as names): prepositions,
# conjunctions, pronouns, determiners.
_EN_FUNCTION = frozenset(
    "about across after against along among amongst around as at because before behind beside between beyond but "
    "by despite down during except for from in inside into like near of off on onto out outside over since "
    "through throughout till to toward towards under underneath unlike until unto upon via with within without "
    "although though unless whereas whether while whose whom another other others either neither both "
    "something anything nothing someone anyone everyone somebody anybody everybody themselves itself himself "
    "herself ourselves yourself yourselves due whereby wherein thereof".split())
# Nouns that stand for whatever the answer is ("what *group* of people", "the *name* of", "how many
# *items*"): the kind of answer, like 什么 + noun; the passage need not use them.
_EN_GENERIC = frozenset(
    "thing things item items people person persons member members group groups kind kinds type types sort sorts "
    "way ways factor factors process name names part parts aspect aspects example examples term terms "
    "category categories form forms manner means reason reasons cause causes purpose role roles entity "
    # a policy's default audience: "employees" need not be named to be meant (interns must be)
    "employee employees staff staffer staffers worker workers personnel".split())
_ZH_DEFAULT_AUDIENCE = frozenset("员工 职工 员工们 同事 全体员工 公司员工".split())
_WH = frozenset(("what", "which", "whose"))
_ZH_FRAME = frozenset(
    "每个 每位 每名 每项 每一 每次 一次 各个 各位 各项 一般 通常 目前 现在 大概 大约 左右 以上 以下 其他 之内 以内 超过 不超过 不少于 "
    "不低于 至少 最多 人民币 欧元 美元 才能 才可以 才可 的话 这份 这个 该项 此项 本 一下 是从 从 到".split())
# A frequency names its unit: "each year", "yearly", 每年 are answered by "per calendar year", 每个自然年.
_EN_FREQUENCY = {"daily": "day", "weekly": "week", "monthly": "month", "yearly": "year", "annual": "year",
                 "annually": "year", "nightly": "night", "hourly": "hour", "quarterly": "quarter"}
# Units in both languages: "days" is answered by 十五日, 小时 by "4 hours".
_UNITS: dict[str, tuple[str, ...]] = {
    "day": ("天", "日", "day"), "week": ("周", "星期", "week"), "month": ("月", "month"), "year": ("年", "year"),
    "night": ("晚", "夜", "night"), "hour": ("小时", "时", "hour"), "minute": ("分钟", "分", "minute"),
    "second": ("秒", "second"), "quarter": ("季度", "quarter"), "meter": ("米", "meter", "metre", "m"),
    "kilometer": ("公里", "千米", "kilometer", "kilometre", "km"), "centimeter": ("厘米", "centimeter", "centimetre", "cm"),
    "millimeter": ("毫米", "millimeter", "millimetre", "mm"), "kilogram": ("公斤", "千克", "kilogram", "kg"),
    "gram": ("克", "gram", "g"), "time": ("次", "time"), "person": ("人", "person"),
}
_ZH_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "月": "month", "年": "year", "晚": "night",
             "小时": "hour", "分钟": "minute", "秒": "second", "季度": "quarter", "米": "meter", "公里": "kilometer",
             "厘米": "centimeter", "毫米": "millimeter", "公斤": "kilogram", "千克": "kilogram", "次": "time"}
# British spellings the dictionary and most documents write the American way
_SPELLING = [(re.compile(r"(?<=[a-z])tre(s?)$"), r"ter\1"), (re.compile(r"(?<=[a-z]{2})our(s?)$"), r"or\1"),
             (re.compile(r"^(licen|defen|offen)ce(s?)$"), r"\1se\2")]
_NUMBER = re.compile(r"(?<![a-z\d.,])\d+(?:[.,]\d+)*(?![a-z\d])")
_EN_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
                    "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100}
_EN_NUMBER_WORD = re.compile(r"\b(" + "|".join(_EN_NUMBER_WORDS) + r")\b")
_ASKS_WHO = re.compile(r"\b(who|whom|whose)\b|谁|哪位|何人|哪个部门|哪个单位|哪个机构|哪一级", re.I)
_TITLE_RUN = re.compile(r"[A-Z][a-z]+(?:\s+(?:of|and|the|for)?\s*[A-Z][a-z]+)+")
_CAPITALISED = re.compile(r"(?<![.?!]\s)(?<!^)\b([A-Z][A-Za-z0-9]*)\b")
_ACRONYM = re.compile(r"\b([A-Z]{2,6})\b")
# Bounds around a number on one line: "above 2,500", "2500 以上", "up to 10%".
_AT_LEAST = re.compile(r"(?:above|over|more than|exceeding|greater than|at least|from|≥|>|(?<!不)超过|(?<!不)高于|"
                       r"(?<!不)大于|满|不少于|不低于)\s*(\d[\d.,]*)"
                       r"|(\d[\d.,]*)\s*(?:\S{0,3})?(?:以上|起|或以上|及以上|or more|and above|\+)", re.I)
_AT_MOST = re.compile(r"(?:below|under|less than|up to|at most|not exceeding|within|≤|<|不超过|(?<!不)低于|(?<!不)小于|"
                      r"不足|最多|不高于|不大于)\s*(\d[\d.,]*)"
                      r"|(\d[\d.,]*)\s*(?:\S{0,3})?(?:以下|以内|之内|内|or less|or fewer)", re.I)


@dataclass(frozen=True)
class Term:
    text: str  # as the question writes it (normalised); a number as digits
    kind: str  # "number" | "word" | "name" | "unit" (a frequency or unit: any of ``forms`` answers it)
    forms: tuple[str, ...] = ()
    verb: bool = False  # a Chinese verb: checked against Chinese passages, a relation across languages


@dataclass(frozen=True)
class Question:
    text: str
    named: tuple[Term, ...]  # what a passage must mention
    wanted: Wanted | None  # the kind of value asked for
    framing: tuple[str, ...] = ()  # words read as framing (excused), for the record
    counted: str | None = None  # the thing a "how many" question counts (how many *prosecutors*, 多少张*人脸*)
    extreme: str | None = None  # "max" / "min": the question asks for a limit ("the most", 至少)
    # the kind of thing a name is (the Enterprise *cluster*, Starter *套餐*): the name says which
    # one, so a passage need not use this word (a plan in the SLA), but a value may be about it
    kinds: tuple[Term, ...] = ()


@dataclass(frozen=True)
class Judgement:
    answerable: bool
    passage: int | None  # the first passage (index into those judged) that answers, or the nearest one
    missing: tuple[str, ...]  # what the nearest passage lacks (empty when answerable)
    no_value: bool = False  # the nearest passage mentions everything but states no value of the kind asked
    question: Question | None = None
    answering: tuple[int, ...] = ()  # every passage that answers, best first


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _value(raw: str) -> float | None:
    try:
        return float(raw.replace(",", ""))
    except ValueError:
        return None


def _numbers(text: str) -> list[float]:
    return [v for v in (_value(m.group()) for m in _NUMBER.finditer(text)) if v is not None]


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_UNIT_AFTER = re.compile(r"\s*(%|[a-z]+|[\u4e00-\u9fff])")
# Currencies and units by one name in both languages (a unit word of _UNITS maps itself)
_CANONICAL_UNITS = {"eur": "eur", "euro": "eur", "euros": "eur", "€": "eur", "元": "cny", "yuan": "cny", "rmb": "cny", "cny": "cny",
                    "usd": "usd", "dollar": "usd", "dollars": "usd", "$": "usd", "%": "%", "percent": "%"}


def _unit_at(text: str, end: int) -> str | None:
    """The unit written right after a number that ends at ``end`` (days, %, 天, EUR), if any."""
    m = _UNIT_AFTER.match(text, end)
    return m.group(1) if m else None


def _numbers_with_units(text: str) -> list[tuple[float, str | None]]:
    out = []
    for m in _NUMBER.finditer(text):
        value = _value(m.group())
        if value is not None:
            out.append((value, _unit_at(text, m.end())))
    return out


def _canonical_unit(unit: str) -> str:
    if unit in _CANONICAL_UNITS:
        return _CANONICAL_UNITS[unit]
    form = base(unit) if unit.isascii() else unit
    return _CANONICAL_UNITS.get(form) or _ZH_UNITS.get(form) or _UNIT_WORDS.get(form) or form


def _same_unit(a: str | None, b: str | None) -> bool:
    """Whether two numbers are counted in one unit (days / 天 / day); a number without a unit
    agrees with any."""
    if a is None or b is None:
        return True
    return _canonical_unit(a) == _canonical_unit(b)


def _american(word: str) -> str:
    for pattern, replacement in _SPELLING:
        word = pattern.sub(replacement, word)
    return word


def _words(question: str) -> list[str]:
    """The question's words: jieba's cut, Latin words and digits whole, single characters that
    together make a dictionary word joined (的年费: 年 费 → 年费)."""
    lex = lexicon()
    out: list[str] = []
    for token in _jieba_tokenizer().cut(digits_for_numerals(_norm(question)), HMM=False):
        token = token.strip()
        if not token:
            continue
        if out and len(token) == 1 and HAN_RUN.fullmatch(token) and HAN_RUN.fullmatch(out[-1]):
            joined = out[-1] + token
            if lex.glosses(joined) and (len(out[-1]) == 1 or not lex.glosses(out[-1])):
                out[-1] = joined
                continue
        # a one-character adjective stays with its noun: 新员工 (new employees), not 员工
        if (out and len(out[-1]) == 1 and HAN_RUN.fullmatch(token) and len(token) > 1 and token not in _ZH_FRAME
                and (len(out) < 2 or out[-2] != "多") and _adjective(out[-1]) and _noun(token)):
            out[-1] += token
            continue
        out.append(token)
    return out


def _adjective(char: str) -> bool:
    return any(p.flag == "a" for p in _zh_tagger().cut(char, HMM=False))


def _noun(word: str) -> bool:
    return all(p.flag.startswith("n") for p in _zh_tagger().cut(word, HMM=False))


def read_question(question: str) -> Question:
    """The question's named things, what it asks for and its framing words."""
    named: list[Term] = []
    kinds: list[Term] = []
    framing: list[str] = []
    wanted = asked_for(question)
    # "who approves an extension of the review *period*": the period is what is talked about, a
    # person is asked for
    asks_who = _ASKS_WHO.search(question) is not None
    names = {m.group(1).lower() for m in _CAPITALISED.finditer(question)}
    if has_chinese(question):  # Latin written capitalised inside Chinese names something: Enterprise 套餐, L7
        names |= {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", question) if not w.islower()}
    flat = _EN_NUMBER_WORD.sub(lambda m: str(_EN_NUMBER_WORDS[m.group()]), digits_for_numerals(_norm(question)))
    levels = _levels(_norm(question))
    for level, words_of_level in levels:
        named.append(Term(words_of_level, "level", (level,)))
    level_words = {w for _, text in levels for w in re.findall(r"[a-z]+|\d+", text)}
    level_texts = {text for _, text in levels}
    for value, unit in _numbers_with_units(flat):
        if f"{value:g}" not in level_words:
            named.append(Term(f"{value:g}", "number", (unit,) if unit else ()))
    after_question_word = False
    words = _words(question)
    for position, token in enumerate(words):
        previous = words[position - 1] if position else ""
        if LATIN.fullmatch(token):
            if token.isdigit() or en_term(token) is None or token in _EN_NUMBER_WORDS or token in level_words:
                continue
            if token in names and token not in _EN_FRAME:
                named.append(Term(token, "name"))
            elif previous in names and previous not in _EN_FRAME and names_something(question, token):
                kinds.append(Term(_american(token), "word"))
            elif token in _EN_FRAME or token in _EN_FUNCTION or token in _EN_GENERIC:
                framing.append(token)
            elif previous in _WH and not _modifies_next(words, position):
                framing.append(token)  # what decade, which direction: the kind of answer asked for
            elif token in _EN_FREQUENCY or base(token) in _UNIT_WORDS:
                unit = _EN_FREQUENCY.get(token) or _UNIT_WORDS[base(token)]
                named.append(Term(token, "unit", (token, *_UNITS.get(unit, (unit,)))))  # annual, or year
            elif previous == "how" or (not names_something(question, token) and not _gerund_modifier(words, position)):
                framing.append(token)  # how fast, how loud: the kind of answer; a verb or adjective
            elif attribute_kind(token) and not asks_who and not _modifies_next(words, position):
                wanted = more_specific(wanted, attribute_kind(token))
                framing.append(token)
            else:
                named.append(Term(_american(token), "word"))
            continue
        for part in HAN_RUN.findall(token):
            word = zh_term(part) if len(part) > 1 else None
            # Starter 套餐, 一级故障: a word right after a name or a level is the kind of thing named
            of_instance = (previous in names or previous in level_texts or bool(LATIN.fullmatch(previous))
                           or (word is not None and any(word.startswith(t) and len(word) > len(t) for t in level_texts)))
            if word and any(word.startswith(text) for _, text in levels):
                word = word[2:] if len(word) > 2 else None  # 一线城市: the level, then 城市
            if word and of_instance and word not in _ZH_FRAME and not _zh_verb(question, word):
                kinds.append(Term(word, "word"))
                continue
            if after_question_word:  # the word after 哪个 / 什么 names the kind of answer asked for
                after_question_word = False
                if word:
                    framing.append(word)
                    continue
            after_question_word = part in ("哪个", "哪些", "什么", "哪种", "哪类", "何种", "哪一个", "哪一")
            if word is None:
                continue
            if word in _ZH_FRAME or word in _ZH_DEFAULT_AUDIENCE:
                framing.append(word)
            elif word[0] in "每一" and len(word) >= 2 and word[1:] in _ZH_UNITS:  # 每年, 一年: a unit
                named.append(Term(word, "unit", _UNITS[_ZH_UNITS[word[1:]]]))
            elif attribute_kind(word) and not asks_who:
                wanted = more_specific(wanted, attribute_kind(word))
                framing.append(word)
            elif not names_something(question, word):
                framing.append(word)
            else:
                named.append(Term(word, "word", verb=_zh_verb(question, word)))
    unique = list({(t.text, t.kind): t for t in named}.values())
    counted = _counted(words, [t.text for t in unique if t.kind in ("word", "name") and not t.verb])
    return Question(question, tuple(unique), wanted, tuple(dict.fromkeys(framing)), counted, asks_extreme(question),
                    tuple(kinds))


_ZH_MEASURE = frozenset("个 张 次 份 位 名 条 项 件 台 把 枚 套 家 种 类 组 批 间 座 辆 本 篇 页 块".split())


def _counted(words: list[str], things: list[str]) -> str | None:
    """The named thing right after "how many" / 多少 / 几 (a measure word between)."""
    for i, w in enumerate(words):
        if w in ("many", "多少", "几") or (w.startswith("几") and len(w) == 2 and w[1] in _ZH_MEASURE):
            for nxt in words[i + 1 : i + 4]:
                if nxt in things:
                    return nxt
                if nxt.strip() and nxt not in _ZH_MEASURE and nxt not in ("of", "the"):
                    break
    return None


def _zh_verb(question: str, word: str) -> bool:
    """Whether jieba tags the word a verb (v) in the question (or alone, when the question's cut
    splits it)."""
    tagger = _zh_tagger()
    tag = next((p.flag for p in tagger.cut(question, HMM=False) if p.word == word), None)
    if tag is None:
        tags = [p.flag for p in tagger.cut(word, HMM=False)]
        tag = tags[0] if len(tags) == 1 else ""
    return tag == "v"


# Ranked levels, said alike in both languages: first-tier / 一线, second class / 二等, level 1 / 一级.
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "top": 1, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_EN_LEVEL_WORDS = "tier|class|level|grade|rank|line|rate|priority|severity|sev|p|l"
_EN_LEVEL = re.compile(rf"\b(first|second|third|fourth|top|1st|2nd|3rd|4th)[- ](?:{_EN_LEVEL_WORDS})\b"
                       rf"|\b(?:tier|class|level|grade|priority|severity|sev|p)[- ]?([1-4])\b")
_ZH_LEVEL = re.compile(r"([一二三四1-4])(?:线|等|级|档|类|流)")
_ZH_LEVEL_VALUE = {"一": 1, "二": 2, "三": 3, "四": 4}


# What a level ranks, so that a first-tier city is not a first-class seat: tiers of places, classes
# of service, levels of severity or priority.
_LEVEL_FAMILY = {**dict.fromkeys(("tier", "line", "线"), "tier"),
                 **dict.fromkeys(("class", "grade", "rate", "rank", "等", "类", "流"), "class"),
                 **dict.fromkeys(("level", "priority", "severity", "sev", "p", "l", "级", "档"), "level")}


def _level_family(words: str) -> str:
    for word in re.findall(r"[a-z]+|[线等级档类流]", words):
        if word in _LEVEL_FAMILY:
            return _LEVEL_FAMILY[word]
    return ""


def _levels(text: str) -> list[tuple[str, str]]:
    """Ranked levels a text names: (the level and what it ranks, e.g. "1 tier"; the words that name it)."""
    out = []
    for m in _EN_LEVEL.finditer(text):
        level = _ORDINALS[m.group(1)] if m.group(1) else int(m.group(2))
        out.append((f"{level} {_level_family(m.group())}", m.group()))
    for m in _ZH_LEVEL.finditer(text):
        level = _ZH_LEVEL_VALUE.get(m.group(1)) or int(m.group(1))
        out.append((f"{level} {_level_family(m.group())}", m.group()))
    return out


_DETERMINERS = frozenset("a an the this that my your our their its his her".split())


def _gerund_modifier(words: list[str], position: int) -> bool:
    """A verb's -ing form between a determiner and a noun names a kind of thing ("a *parking*
    permit", "the *connecting* rod"), it does not relate."""
    word = words[position]
    if not word.endswith("ing") or position == 0 or position + 1 >= len(words):
        return False
    following = words[position + 1]
    return words[position - 1] in _DETERMINERS and LATIN.fullmatch(following) is not None \
        and en_term(following) is not None


def _modifies_next(words: list[str], position: int) -> bool:
    """An attribute word used as a modifier names something ("the *payment* code", "a *price* list"):
    the next word is another content word."""
    following = [w for w in words[position + 1 : position + 2] if w.strip()]
    return bool(following) and LATIN.fullmatch(following[0]) is not None and en_term(following[0]) is not None \
        and following[0] not in _EN_FRAME and attribute_kind(following[0]) is None


_UNIT_WORDS = {w: unit for unit, forms in _UNITS.items() for w in forms if w.isalpha() and w.isascii() and len(w) > 2}


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

    def __post_init__(self) -> None:
        self.text = digits_for_numerals(_norm(self.raw))
        self.chinese = has_chinese(self.text)
        self.words = set(LATIN.findall(self.text))
        self.stems = {base(_american(w)) for w in self.words}
        self.lines = _EN_NUMBER_WORD.sub(lambda m: str(_EN_NUMBER_WORDS[m.group()]), self.text).splitlines()

    @property
    def concepts(self) -> frozenset[str]:
        """English stems: the passage's English words and what its Chinese words mean."""
        if self._concepts is None:
            self._concepts = frozenset(self.stems) | (lexicon().concepts(self.text) if self.chinese else frozenset())
        return self._concepts

    def mentions(self, term: Term) -> bool:
        if term.verb and not self.chinese:
            # Across languages a verb is the relation, as English verbs are within English: the
            # dictionary's English for a Chinese verb rarely is the passage's verb (提交 / report).
            return True
        if term.kind == "number":
            return self._has_number(float(term.text), term.forms[0] if term.forms else None)
        if term.kind == "value":  # an answer's number: the passage must state this very value
            return any(float(term.text) in _numbers(line) for line in self.lines)
        if term.kind == "level":
            return any(level in term.forms for level, _ in _levels(self.text))
        if term.kind == "unit":
            return any(f in self.text if has_chinese(f) or not f.isalpha() else related_in(f, self.concepts)
                       for f in term.forms)
        word = term.text
        if HAN_RUN.fullmatch(word):
            return self._has_chinese_word(word)
        form = base(word)
        if term.kind == "name" and not self.chinese:
            # a name is itself, not its dictionary synonyms: the Enterprise plan is not the Business one
            return word in self.words or form in self.stems or self._spells(word) or self._misspelt(word)
        if related_in(form, self.stems) or word in self.stems or related_in(form, self.concepts) or self._spells(word):
            return True
        if self._misspelt(word):
            return True
        return any(related_in(base(w), self.concepts) for w in wordnet().synonyms(form) | lexicon().synonyms(form))

    def _spells(self, word: str) -> bool:
        """An acronym the passage writes out in capitalised words: EEA in "European Economic Area"
        (a two-letter one only as a run's very initials: EU, "European Union")."""
        if not (2 <= len(word) <= 6 and word.isalpha()):
            return False
        for run in _TITLE_RUN.finditer(self.raw):
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
        if word in self.text or in_order_within(word, self.text, 2 * len(word) + 1) or has_parts(word, self.text):
            return True
        lex = lexicon()
        # in an English passage a Chinese word is matched by half of a sense's words (出差: business
        # trip, in "business travel"); in Chinese, a synonym must say the sense (超速 / 限速: speed)
        lenient = not self.chinese
        senses = lex.glosses(word)
        if senses:
            return any(sense_matched(s, self.concepts, lenient) for s in senses)
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
        month = _MONTHS[int(value) - 1] if _canonical_unit(unit or "") == "month" and value in range(1, 13) else None
        # a table row's cells are separate statements: 99.0% in one cell and 10% in the next are no range
        for line in (cell for row in self.lines for cell in row.split("|")):
            numbers = _numbers_with_units(line)
            if any(v == value for v, _ in numbers) or (month and re.search(rf"\b{month}", line)):
                return True  # 十二月 is December
            same = [v for v, u in numbers if _same_unit(unit, u)]
            if len(same) >= 2 and any(a < value < b or b < value < a for a, b in zip(same, same[1:])):
                return True
            for pattern, beyond in ((_AT_LEAST, lambda bound: value >= bound), (_AT_MOST, lambda bound: value <= bound)):
                for m in pattern.finditer(line):
                    bound = _value(m.group(1) or m.group(2) or "")
                    after = _unit_at(line, m.end(1) if m.group(1) else m.end(2))
                    if bound is not None and beyond(bound) and _same_unit(unit, after):
                        return True
        return False


# Resultative complements: 送到 is 送 done, 锁住 is 锁 holding; the verb carries the meaning.
_COMPLEMENTS = frozenset("到住给完好掉上下出进回过起开成走来去")


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


def _pieces(word: str, lex) -> list[str]:
    """A word the dictionary lacks, cut into its longest dictionary words, left to right (a verb's
    resultative complement dropped: 送到 → 送)."""
    if len(word) == 2 and word[1] in _COMPLEMENTS:
        return [word[0]]
    out, i = [], 0
    while i < len(word):
        for j in range(len(word), i, -1):
            if lex.glosses(word[i:j]) or j == i + 1:
                if j > i + 1 or lex.glosses(word[i:j]):
                    out.append(word[i:j])
                i = j
                break
    return out


_SEGMENT = re.compile(r"(?<=[。！？；;!?\n])|(?<=\.)\s+")


_BLOCK_START = re.compile(r"\s*(?:[-*+>#|•·]|\d+[.)、]|[（(]?[一二三四五六七八九十\d]+[）)、]|第[一二三四五六七八九十百\d]+[条章节款])")


def _paragraph_lines(body: str) -> list[str]:
    """The body's lines with a paragraph's wrapped lines joined: a sentence broken at the end of a
    line ("may not exceed" / "50% of the monthly fee") is one sentence. A list item, heading, table
    row or numbered article starts a line of its own."""
    out: list[str] = []
    for line in body.splitlines():
        joins = (out and out[-1].strip() and line.strip() and not _BLOCK_START.match(line)
                 and not out[-1].lstrip().startswith(("|", "#")))
        if joins:
            glue = "" if has_chinese(out[-1][-1:]) and has_chinese(line.lstrip()[:1]) else " "
            out[-1] = out[-1].rstrip() + glue + line.strip()
        else:
            out.append(line)
    return out


def _segments(body: str) -> list[tuple[str, bool, str]]:
    """Sentences, and table rows each with its table's header row (the header names the columns).
    A question is also read with the sentence after it: in a FAQ the answer belongs to its question
    ("一线城市住宿标准是多少？ 每晚六百元。"). Each with whether it is one such unit (a row, a question
    and its answer), where a value is about whatever the unit names, however far apart; and the
    question of a FAQ pair ("" for the rest)."""
    out: list[tuple[str, bool, str]] = []
    header: str | None = None
    asked: str | None = None  # a question waiting for its answer
    lines = _paragraph_lines(body)
    for i, line in enumerate(lines):
        if line.lstrip().startswith("|"):
            asked = None
            if re.fullmatch(r"[\s|:-]+", line):
                continue
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if re.fullmatch(r"\s*\|[\s|:-]+", following):  # a header row: the separator follows it
                header = line
            else:
                out.append((f"{header}\n{line}" if header else line, True, ""))
            continue
        header = None
        for sentence in _SEGMENT.split(line):
            if not sentence.strip():
                continue
            if asked is not None:
                out.append((f"{asked} {sentence}", True, asked))
            out.append((sentence, False, ""))
            asked = sentence if sentence.rstrip(" *_").endswith(("?", "？")) else None  # **问：…？**
    return out


# How far from a value the thing it is about may stand, in characters: "试用期满的员工每周最多可
# 居家办公两天" gives the days of working from home, not the length of probation.
_NEAR_ZH, _NEAR_EN = 12, 60

# A question after a limit ("the most", 最多, "minimum") and the wording that states one of that side.
_ASKS_EXTREME = {
    "max": re.compile(r"\b(?:most|maximum|max|highest|longest|largest|at most|up to|cap|ceiling)\b|最多|最高|最长|最大|上限|"
                      r"封顶|不超过|至多", re.I),
    "min": re.compile(r"\b(?:least|minimum|min|lowest|shortest|smallest|at least)\b|最少|最低|最短|最小|下限|至少|不少于",
                      re.I),
}
_STATES_EXTREME = {
    "max": re.compile(r"\b(?:not (?:to )?exceed|no more than|not more than|at most|up to|maximum|max\.?|cap(?:ped)?|"
                      r"limit(?:ed)? to|ceiling)\b|不(?:得|能|可|应)?超过|最多|最高|上限|封顶|至多|以内|为限", re.I),
    "min": re.compile(r"\b(?:at least|no less than|not less than|minimum|min\.?|no fewer than)\b|不(?:得|能|应)?(?:少于|低于|小于)|"
                      r"至少|最少|最低|下限|以上", re.I),
}


_NEGATION = re.compile(r"\b(?:no|not|never|cannot|prohibited|forbidden|banned|disallowed)\b|n't\b|不得|不能|不可|不允许|不准|"
                       r"不许|禁止|严禁|不予|不应", re.I)


def asks_extreme(question: str) -> str | None:
    """"max" / "min" when the question asks for a limit, else None."""
    for side, pattern in _ASKS_EXTREME.items():
        if pattern.search(question):
            return side
    return None


def _things(question: Question, chinese_text: bool) -> list[Term]:
    """What a value must be about: the thing counted ("how many *faces*"), else every named word
    — the verbs too when the text is Chinese (the deadline to 提出), not across languages."""
    things = [t for t in question.named + question.kinds if t.kind in ("word", "name") and (chinese_text or not t.verb)]
    if question.counted:
        things = [t for t in things if t.text == question.counted]
    return things


# A lone numeral before a unit or measure word (五晚, 两天, 三次): a count the question gives.
_ZH_ONE_NUMERAL = {c: i for i, c in enumerate("零一二三四五六七八九十", start=0)} | {"两": 2}
_ZH_COUNT = re.compile(r"([一二三四五六七八九十两])(?=[晚夜天日月年周次个份张名人台件小分])")


def _answer_spans(segment: str, question: Question) -> list[tuple[int, int]]:
    """Where ``segment`` states a value of the kind asked for, other than a number the question
    itself gives ("more than five nights" is the question's condition, not its answer)."""
    spans = value_spans(segment, question.wanted) if segment.strip() and question.wanted else []
    asked = _ZH_COUNT.sub(lambda m: str(_ZH_ONE_NUMERAL[m.group(1)]), digits_for_numerals(_norm(question.text)))
    given = set(_numbers(_EN_NUMBER_WORD.sub(lambda m: str(_EN_NUMBER_WORDS[m.group()]), asked)))
    if not given:
        return spans
    kept = []
    for start, end in spans:
        said = digits_for_numerals(_norm(segment[start:end]))
        values = set(_numbers(_EN_NUMBER_WORD.sub(lambda m: str(_EN_NUMBER_WORDS[m.group()]), said)))
        if not values or not values <= given:
            kept.append((start, end))
    return kept


def _states_about(question: Question, body: str) -> str | None:
    """The sentence or table row of the passage's body that states a value of the kind asked for
    about a thing the question names (near it in a sentence; anywhere in a table row with its
    header); None when there is none: the number of fingerprints does not answer "how many faces"."""
    for segment, whole, _ in _segments(body):
        spans = _answer_spans(segment, question)
        if not spans:
            continue
        things = _things(question, has_chinese(segment))
        if not things or (whole and any(PassageText(segment).mentions(t) for t in things)):
            return segment
        near = _NEAR_ZH if has_chinese(segment) else _NEAR_EN
        for start, end in spans:
            window = PassageText(segment[max(0, start - near) : end + near])
            if any(window.mentions(t) for t in things):
                return segment
    return None


@dataclass(frozen=True)
class Evidence:
    passage: int  # which of the passages judged
    text: str  # the sentence or table row (with its header) that answers
    score: float


def best_evidence(question: Question, bodies: list[str], candidates: tuple[int, ...]) -> Evidence | None:
    """Of the answering passages (``candidates``), the sentence or table row that answers best
    (the better passage first when two score alike; a passage in the question's language before
    one in the other, unless the other answers clearly better: a Chinese question over a bilingual
    handbook is answered from its Chinese text)."""
    asked_in_chinese = has_chinese(question.text)
    best: Evidence | None = None
    for i in candidates:
        text, score = evidence(question, bodies[i])
        if text is None:
            continue
        score += _SAME_LANGUAGE if has_chinese(text) == asked_in_chinese else 0.0
        if best is None or score > best.score:
            best = Evidence(i, text, score)
    return best


_SAME_LANGUAGE = 0.75  # of a named thing's weight (1): less than one more thing mentioned


def evidence(question: Question, body: str) -> tuple[str | None, float]:
    """The sentence or table row of an answering passage that answers, and how well: the one that
    mentions most of what the question names and states the value asked for near it (a table row
    is read with its header). None when no sentence mentions anything the question names."""
    best, best_score = None, 0.0
    negated = _NEGATION.search(question.text) is not None
    for segment, whole, faq_question in _segments(body):
        if not segment.strip():
            continue
        part = PassageText(segment)
        score = float(sum(part.mentions(t) for t in question.named + question.kinds))
        # the framing words (acknowledge, 延长) tell two sentences about one thing apart
        score += 0.5 * sum(part.mentions(Term(w, "word")) for w in question.framing if attribute_kind(w) is None)
        # "when are we *not* allowed to deploy": the sentence that forbids ("No deploys on Fridays")
        if score and negated and _NEGATION.search(segment):
            score += 1.0
        if score and question.wanted is not None:
            spans = _answer_spans(segment, question)
            if spans:
                score += 1.0
                things = _things(question, has_chinese(segment))
                near = _NEAR_ZH if has_chinese(segment) else _NEAR_EN
                if whole and any(part.mentions(t) for t in things) or any(
                        PassageText(segment[max(0, a - near) : b + near]).mentions(t) for a, b in spans for t in things):
                    score += 2.0
                # "how many family members": the number that counts them ("10 个家庭成员账号")
                counted = [t for t in things if t.text == question.counted]
                if counted and any(PassageText(segment[b : b + 8]).mentions(counted[0]) for _, b in spans):
                    score += 1.5
                # "the most we can get back": the sentence that states a limit of that side
                if question.extreme and _STATES_EXTREME[question.extreme].search(segment):
                    score += 1.0
                # of two FAQ answers, the one to a question asking for the same kind of value
                if faq_question and asked_for(faq_question) == question.wanted:
                    score += 0.5
        if score > best_score:
            best, best_score = segment, score
    return best, best_score


def passage_text(source: str, heading_path: list[str], text: str) -> str:
    """What a passage is judged on: its file name and heading path with its text."""
    return f"{source}\n{' / '.join(heading_path)}\n{text}"


def judge(question: Question, passages: list[str], bodies: list[str] | None = None) -> Judgement:
    """The first passage (in the order given: best first) that mentions every named thing of the
    question and states the value asked for about one of them; otherwise the nearest one and what
    it lacks. ``passages``: the text each is judged on (its file name and heading path with its
    text); ``bodies``: the text alone, where values are looked for (default: ``passages``)."""
    bodies = bodies or passages
    best: tuple[int, int, tuple[str, ...], bool] | None = None  # (shortfall, index, missing, no value)
    answering: list[int] = []
    for i, raw in enumerate(passages):
        passage = PassageText(raw)
        missing = tuple(t.text for t in question.named if not passage.mentions(t))
        no_value = question.wanted is not None and _states_about(question, bodies[i]) is None
        if not missing and not no_value:
            answering.append(i)
            continue
        shortfall = len(missing) + no_value
        if best is None or shortfall < best[0]:
            best = (shortfall, i, missing, no_value and not missing)
    if answering:
        return Judgement(True, answering[0], (), False, question, tuple(answering))
    if best is None:
        return Judgement(False, None, tuple(t.text for t in question.named), False, question)
    return Judgement(False, best[1], best[2], best[3], question)
