"""How strict mode reads a question (``read_question``), before any passage is judged.

A question is read into:

* **named things** — nouns, names, numbers, Chinese content words (实习生, motorbike, MySQL, 30):
  each must be in the passage that answers (``answerable.py``);
* **the kinds of named things** — the word right after a name or a level (the Enterprise *cluster*,
  Starter *套餐*, 一级*故障*): the name says which one, so the passage need not use the word;
* **what is asked for** — question words and attribute words (how many, 多久, cap, price, 上限,
  租金): not looked for as words; the passage must state a value of that kind
  (``answer_types.py``: a price needs an amount of money, a weight a weight), a limit of the side
  asked for ("the most", 至少) when there is one;
* **the framing** — English verbs, adjectives and adverbs, Chinese function words and modal verbs,
  "each", "per", "more than", 每个, currencies: excused (``word_class.py``), because they relate
  what is named rather than name it; a frequency ("each year", 每月, monthly) needs only its unit,
  a unit word (days, metres, 小时) its unit in either language.

Numbers, units and ranked levels are read here too, alike in questions and passages.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from core.answering.answer_types import Wanted, asked_for, attribute_kind, more_specific
from core.answering.coverage import HAN_RUN, LATIN, digits_for_numerals, en_term, numeral_digits, zh_term
from core.answering.word_class import _zh_tagger, names_something
from core.retrieval.bilingual import base, has_chinese, lexicon
from core.retrieval.bm25 import _jieba_tokenizer
from core.answering.eras import eras
from core.retrieval.transliteration import english_word, transliterated

# Words that only frame a question: they name nothing a passage must say.
_EN_FRAME = frozenset(
    "each every per single certain specific exact particular usually normally typically currently still ever "
    "already else besides more less fewer least most over under above below than exceeding beyond this these "
    "that those such any euro euros eur yuan rmb cny dollar dollars usd up down out off back away maximum minimum max "
    "min highest lowest".split())
# Function words lemminflect's lexicon does not hold (so they would read as names): prepositions,
# conjunctions, pronouns, determiners.
_EN_FUNCTION = frozenset(
    "about across after against along among amongst around as at because before behind beside between beyond but "
    "by despite down during except for from in inside into like near of off on onto out outside over since "
    "through throughout till to toward towards under underneath unlike until unto upon via with within without "
    "although though unless whereas whether while whose whom another other others either neither both "
    "something anything nothing someone anyone everyone somebody anybody everybody themselves itself himself "
    "herself ourselves yourself yourselves due whereby wherein thereof "
    # "isn't", "doesn't", "cannot" read without their apostrophe: a negation, not a word
    "isn aren wasn weren doesn didn don hasn haven hadn couldn wouldn shouldn mustn needn cannot".split())
# Nouns that stand for whatever the answer is ("what *group* of people", "the *name* of", "how many
# *items*"): the kind of answer, like 什么 + noun; the passage need not use them.
_EN_GENERIC = frozenset(
    "thing things item items people person persons member members group groups kind kinds type types sort sorts "
    "way ways factor factors process name names part parts aspect aspects example examples term terms "
    "category categories form forms manner means reason reasons cause causes purpose role roles entity "
    "location locations nickname nicknames "
    # a policy's default audience: "employees" need not be named to be meant (interns must be)
    "employee employees staff staffer staffers worker workers personnel".split())
# "for work", "at work": the setting of every workplace text, as its default audience is
_EN_WORK_CONTEXT = frozenset("work business job".split())
_ZH_DEFAULT_AUDIENCE = frozenset("员工 职工 员工们 同事 全体员工 公司员工".split())
_WH = frozenset(("what", "which", "whose"))
_WHICH_COUNT = re.compile(r"\b(?:which|what)\s+(\d+)\b|\b(?:what|who|which)\s+(?:are|were)\s+(\d+)\b"
                          r"|\bname\s+(\d+)\b")
# The same in Chinese: nouns that stand for whatever the answer is (叫什么*名字*, 哪些*方面*)
_ZH_GENERIC = frozenset(
    "东西 事情 事物 人员 成员 团体 群体 种类 类型 类别 方式 方法 因素 过程 名字 名称 部分 一部分 方面 例子 术语 形式 原因 目的 "
    "作用 角色".split())
# Characters that sound out names but stand alone as words of their own: 比 "than", 多 "how"
_NOT_NAME_PARTS = frozenset("比多")
_NAME_DOTS = frozenset("·•・‧")  # between a foreign name's parts: 卡尔·威尔海姆·舍勒
_ZH_FRAME = frozenset(
    "每个 每位 每名 每项 每一 每次 一次 各个 各位 各项 一般 通常 目前 现在 大概 大约 左右 以上 以下 其他 之内 以内 超过 不超过 不少于 "
    "不低于 至少 最多 人民币 欧元 美元 才能 才可以 才可 的话 这份 这个 该项 此项 本 一下 是从 从 到 "
    "还有 说出 很多 许多".split())
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
    "gram": ("克", "gram", "g"), "time": ("次", "time", "twice", "once", "thrice", "遍"), "person": ("人", "person"),
}
_ZH_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "月": "month", "年": "year", "晚": "night",
             "小时": "hour", "分钟": "minute", "秒": "second", "季度": "quarter", "米": "meter", "公里": "kilometer",
             "厘米": "centimeter", "毫米": "millimeter", "公斤": "kilogram", "千克": "kilogram", "次": "time"}
# British spellings the dictionary and most documents write the American way
_SPELLING = [(re.compile(r"(?<=[a-z])tre(s?)$"), r"ter\1"), (re.compile(r"(?<=[a-z]{2})our(s?)$"), r"or\1"),
             (re.compile(r"^(licen|defen|offen)ce(s?)$"), r"\1se\2")]
# A number stands alone or is written against its unit ("2.4GHz", "10mm", "65W"); a number inside
# a code ("L7", "IP54", "5G", "v2") is a name, not a quantity.
_GLUED_UNITS = "ghz|mhz|khz|hz|kg|mg|km|cm|mm|ml|kwh|kw|mah|db|tb|gb|mb|kb|ms|mins|min|hrs|hr|h|m|l|w|v"
_NUMBER = re.compile(rf"(?<![a-z\d.,])\d+(?:[.,]\d+)*(?![.,]\d)(?:(?=(?:{_GLUED_UNITS})(?![a-z\d]))|(?![a-z\d]))")
EN_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
                    "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100}
EN_NUMBER_WORD = re.compile(r"\b(" + "|".join(EN_NUMBER_WORDS) + r")\b")
_ASKS_WHO = re.compile(r"\b(who|whom|whose)\b|谁|哪位|何人|哪个部门|哪个单位|哪个机构|哪一级", re.I)
TITLE_RUN = re.compile(r"[A-Z][a-z]+(?:\s+(?:of|and|the|for)?\s*[A-Z][a-z]+)+")
_CAPITALISED = re.compile(r"(?<![.?!]\s)(?<!^)\b([A-Z][A-Za-z0-9]*)\b")
_ACRONYM = re.compile(r"\b([A-Z]{2,6})\b")
# Bounds around a number on one line: "above 2,500", "2500 以上", "up to 10%".
AT_LEAST = re.compile(r"(?:above|over|more than|exceeding|greater than|at least|from|≥|>|(?<!不)超过|(?<!不)高于|"
                       r"(?<!不)大于|满|不少于|不低于)\s*(\d[\d.,]*)"
                       r"|(\d[\d.,]*)\s*(?:\S{0,3})?(?:以上|起|或以上|及以上|or more|and above|\+)", re.I)
AT_MOST = re.compile(r"(?:below|under|less than|up to|at most|not exceeding|within|≤|<|不超过|(?<!不)低于|(?<!不)小于|"
                      r"不足|最多|不高于|不大于)\s*(\d[\d.,]*)"
                      r"|(\d[\d.,]*)\s*(?:\S{0,3})?(?:以下|以内|之内|内|or less|or fewer)", re.I)


@dataclass(frozen=True)
class Term:
    text: str  # as the question writes it (normalised); a number as digits
    kind: str  # "number" | "word" | "name" | "unit" (a frequency or unit: any of ``forms`` answers it)
    # a unit's or level's forms, any of which answers it; for a given name, its surname (Dudley: Simpson)
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


def normalise(text: str) -> str:
    """NFKC, lower case, and Latin letters without their accents (Temüjin is temujin: a word,
    where the accented letter would cut it in two)."""
    text = unicodedata.normalize("NFKC", text).lower()
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", _LATIN_ACCENT.sub("", unicodedata.normalize("NFKD", text)))


_LATIN_ACCENT = re.compile(r"(?<=[a-z])[\u0300-\u036f]+")


def number_value(raw: str) -> float | None:
    try:
        return float(raw.replace(",", ""))
    except ValueError:
        return None


def numbers(text: str) -> list[float]:
    return [v for v in (number_value(m.group()) for m in _NUMBER.finditer(text)) if v is not None]


MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_UNIT_AFTER = re.compile(r"\s*(%|[a-z]+|[\u4e00-\u9fff])")
# Currencies and units by one name in both languages (a unit word of _UNITS maps itself)
_CANONICAL_UNITS = {"eur": "eur", "euro": "eur", "euros": "eur", "€": "eur", "元": "cny", "yuan": "cny", "rmb": "cny", "cny": "cny",
                    "usd": "usd", "dollar": "usd", "dollars": "usd", "$": "usd", "%": "%", "percent": "%"}


def unit_at(text: str, end: int) -> str | None:
    """The unit written right after a number that ends at ``end`` (days, %, 天, EUR), if any."""
    m = _UNIT_AFTER.match(text, end)
    return m.group(1) if m else None


def numbers_with_units(text: str) -> list[tuple[float, str | None]]:
    out = []
    for m in _NUMBER.finditer(text):
        value = number_value(m.group())
        if value is not None:
            out.append((value, unit_at(text, m.end())))
    return out


def canonical_unit(unit: str) -> str:
    if unit in _CANONICAL_UNITS:
        return _CANONICAL_UNITS[unit]
    form = base(unit) if unit.isascii() else unit
    return _CANONICAL_UNITS.get(form) or _ZH_UNITS.get(form) or _UNIT_WORDS.get(form) or form


def same_unit(a: str | None, b: str | None) -> bool:
    """Whether two numbers are counted in one unit (days / 天 / day); a number without a unit
    agrees with any."""
    if a is None or b is None:
        return True
    return canonical_unit(a) == canonical_unit(b)


def american(word: str) -> str:
    for pattern, replacement in _SPELLING:
        word = pattern.sub(replacement, word)
    return word


def _words(question: str) -> list[str]:
    """The question's words: jieba's cut, Latin words and digits whole, single characters that
    together make a dictionary word joined (的年费: 年 费 → 年费)."""
    lex = lexicon()
    out: list[str] = []
    for token in _jieba_tokenizer().cut(eras(digits_for_numerals(normalise(question))), HMM=False):
        token = token.strip()
        if not token:
            continue
        if out and len(token) == 1 and HAN_RUN.fullmatch(token) and HAN_RUN.fullmatch(out[-1]):
            joined = out[-1] + token
            if lex.glosses(joined) and (len(out[-1]) == 1 or not lex.glosses(out[-1])):
                out[-1] = joined
                continue
        # a foreign name jieba cut into pieces (杰克逊 / 维尔, 希 / 普 / 尚 / 克斯) is one name:
        # 杰克逊维尔 (Jacksonville), not Jackson and a fragment
        if (out and transliterated(out[-1] + token) and HAN_RUN.fullmatch(out[-1])
                and out[-1] not in _NOT_NAME_PARTS and token not in _NOT_NAME_PARTS
                and (len(out[-1]) == 1 or len(token) == 1 or not lex.glosses(out[-1]) or not lex.glosses(token))):
            out[-1] += token
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


_CONTRACTED_NOT = re.compile(r"n['’]t\b")
_AMPERSAND_NAME = re.compile(r"(?<![a-z0-9])[a-z]{1,4}&[a-z]{1,4}(?![a-z0-9])")


def read_question(question: str) -> Question:
    """The question's named things, what it asks for and its framing words."""
    # "can't", "isn't": the apostrophe would cut off a "t" that breaks the reading of the next word
    asked, question = question, _CONTRACTED_NOT.sub("n", question)
    named: list[Term] = []
    kinds: list[Term] = []
    framing: list[str] = []
    wanted = asked_for(question)
    # "who approves an extension of the review *period*": the period is what is talked about, a
    # person is asked for
    asks_who = _ASKS_WHO.search(question) is not None
    names = {m.group(1).lower() for m in _CAPITALISED.finditer(question)}
    # "Hutchinson Hall was…": a word English does not hold opening the question is a name
    first = re.match(r"\s*([A-Z][A-Za-z]+)\b", question)
    opening = first.group(1).lower() if first else ""
    if opening and opening not in _EN_FUNCTION and opening not in _EN_FRAME and not english_word(opening):
        names.add(opening)
    # V&A, AT&T, R&D: letters joined by an ampersand are one name (their single letters were dropped)
    for joined in _AMPERSAND_NAME.findall(normalise(question)):
        named.append(Term(joined, "name"))
    if has_chinese(question):  # Latin written capitalised inside Chinese names something: Enterprise 套餐, L7
        names |= {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", question) if not w.islower()}
    # "one container" is "a container", as 一个托盘 is: the price per unit answers it, so "one" is
    # not a number the passage must state (the digit 1 still is: 1 kg)
    flat = EN_NUMBER_WORD.sub(lambda m: m.group() if m.group() == "one" else str(EN_NUMBER_WORDS[m.group()]),
                              eras(digits_for_numerals(normalise(question))))
    levels = ranked_levels(normalise(question))
    for level, words_of_level in levels:
        named.append(Term(words_of_level, "level", (level,)))
    level_words = {w for _, text in levels for w in re.findall(r"[a-z]+|\d+", text)}
    level_texts = {text for _, text in levels}
    # "which two treaties", "what are two examples", "name two": the answer's shape
    shapes = {next(g for g in m.groups() if g) for m in _WHICH_COUNT.finditer(flat)}
    for value, unit in numbers_with_units(flat):
        if f"{value:g}" not in level_words and f"{value:g}" not in shapes:
            named.append(Term(f"{value:g}", "number", (unit,) if unit else ()))
    after_question_word = False
    words = _words(question)
    for position, token in enumerate(words):
        previous = words[position - 1] if position else ""
        if LATIN.fullmatch(token):
            if token.isdigit() or en_term(token) is None or token in EN_NUMBER_WORDS or token in level_words:
                continue
            following = words[position + 1] if position + 1 < len(words) else ""
            if token in names and (token not in _EN_FRAME or previous in names):  # L7 *Max*: a name goes on
                # a given name before its surname (Dudley Simpson): a Chinese text may say the surname only
                surname = following in names and not english_word(token) and not english_word(following)
                named.append(Term(token, "name", (following,) if surname else ()))
            elif previous in names and previous not in _EN_FRAME and names_something(question, token):
                kinds.append(Term(american(token), "word"))
            elif token in _EN_FRAME or token in _EN_FUNCTION or token in _EN_GENERIC:
                framing.append(token)
            elif previous in ("for", "at") and token in _EN_WORK_CONTEXT:
                framing.append(token)  # "drive my car for work": a workplace text's own setting
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
                named.append(Term(american(token), "word"))
            continue
        for part in HAN_RUN.findall(token):
            counted = _ZH_COUNT_WORD.fullmatch(part)
            if counted and counted.group(1) and counted.group(3) in _ZH_PART_OF_TEXT:
                pass  # 第三条, 第二页: a numbered part of a text, named whole
            elif counted and counted.group(1):  # 第一家: the ordinal (第一: "first"), not the measure word
                part = f"第{counted.group(2)}"
            elif counted and counted.group(2) == "一":  # 一项研究: "a study", as "one container" is "a container"
                framing.append(part)
                continue
            elif counted and previous.endswith("哪"):  # 哪两个条约: the answer's shape ("which two")
                framing.append(part)
                continue
            elif counted:  # 两个整数: the count is a number the passage states ("two integers")
                named.append(Term(numeral_digits(counted.group(2)), "number", ()))
                continue
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
            if word in _ZH_FRAME or word in _ZH_DEFAULT_AUDIENCE or word in _ZH_GENERIC:
                framing.append(word)
            elif word[0] in "每一" and len(word) >= 2 and word[1:] in _ZH_UNITS:  # 每年, 一年: a unit
                named.append(Term(word, "unit", _UNITS[_ZH_UNITS[word[1:]]]))
            elif attribute_kind(word) and not asks_who:
                wanted = more_specific(wanted, attribute_kind(word))
                framing.append(word)
            elif not names_something(question, word):
                framing.append(word)
            else:
                # a given name before its surname (达德利·辛普森): a text may say the surname only
                after = words[position + 1 : position + 3]
                surname = (len(after) == 2 and after[0] in _NAME_DOTS and transliterated(word) and transliterated(after[1]))
                named.append(Term(word, "word", (after[1],) if surname else (), verb=_zh_verb(question, word)))
    unique = list({(t.text, t.kind): t for t in named}.values())
    counted = _counted(words, [t.text for t in unique if t.kind in ("word", "name") and not t.verb])
    return Question(asked, tuple(unique), wanted, tuple(dict.fromkeys(framing)), counted, asks_extreme(question),
                    tuple(kinds))


_ZH_MEASURE = frozenset("个 张 次 份 位 名 条 项 件 台 把 枚 套 家 种 类 组 批 间 座 辆 本 篇 页 块".split())
# A numeral with its measure word, as jieba cuts it (两个, 一项, 第一家): a count or an ordinal.
_ZH_PART_OF_TEXT = frozenset("条 款 章 节 篇 页 项 届".split())
_ZH_COUNT_WORD = re.compile(rf"(第)?([一二两三四五六七八九十]+)([{''.join(_ZH_MEASURE)}支只届])")


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
    splits it); never the word right after a preposition (jieba's dictionary tags 托盘 a verb)."""
    tagger = _zh_tagger()
    cut = list(tagger.cut(question, HMM=False))
    at = next((i for i, p in enumerate(cut) if p.word == word), None)
    if at and cut[at - 1].flag == "p":  # 用托盘发货: after a preposition comes its object, not the verb
        return False
    tag = cut[at].flag if at is not None else None
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


def ranked_levels(text: str) -> list[tuple[str, str]]:
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



# A question after a limit ("the most", 最多, "minimum").
_ASKS_EXTREME = {
    "max": re.compile(r"\b(?:most|maximum|max|highest|longest|largest|at most|up to|cap|ceiling)\b|最多|最高|最长|最大|上限|"
                      r"封顶|不超过|至多", re.I),
    "min": re.compile(r"\b(?:least|minimum|min|lowest|shortest|smallest|at least)\b|最少|最低|最短|最小|下限|至少|不少于",
                      re.I),
}


def asks_extreme(question: str) -> str | None:
    """"max" / "min" when the question asks for a limit, else None."""
    for side, pattern in _ASKS_EXTREME.items():
        if pattern.search(question):
            return side
    return None
