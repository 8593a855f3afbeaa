"""A question's words, and where a word occurs in a text.

Strict mode's judgement of whether a passage answers a question (``answerable.py``) and the
follow-up detection (``followup.py``) read questions with these: jieba's cut for Chinese (English
words and digits whole), numerals as digits (十五 → 15), question words, particles and single
Chinese characters left out (``key_terms``); and look a Chinese word up in a text forgivingly where
Chinese varies its form: its characters in order within a short span (``每年`` in ``每个自然年``,
``检察院`` in ``人民检察院``), or each of its own words present (``坐飞机``: ``飞机``; ``刑事诉讼``
stays missing without ``刑事``).
"""

from __future__ import annotations

import re
import unicodedata

from core.answering.word_class import _zh_tagger
from core.retrieval.bm25 import _EN_STOP, _ZH_STOP, _jieba_tokenizer

# Question words, auxiliaries and generic verbs: they shape a question, they name nothing the
# answer must contain. Extending this list only makes the check more lenient.
_EN_QUESTION_WORDS = frozenset(
    "can could should would may might must shall will many much long often there any all some "
    "get gets got give given need needs me my mine we our us i if so than then not no yes "
    "also just only please tell know kind way there's what's who's how's whats hows "
    "exactly actually use used uses using apply applies applied happen happens mean means "
    "regarding concerning".split()
)
# Chinese question words and generic predicates: no key terms.
_ZH_QUESTION_WORDS = frozenset((
    "多长时间", "什么时候", "多少钱", "为什么", "怎么样", "是不是", "能不能", "可不可以", "有没有", "要不要",
    "什么", "多少", "多久", "多长", "多大", "多高", "怎么", "怎样", "如何", "哪个", "哪些", "哪里", "哪儿",
    "哪家", "哪位", "哪一", "是否", "能否", "可否", "请问", "一下", "可以", "需要", "应该", "应当", "必须",
    "规定", "要求", "的话", "时候", "以后", "之后", "以前", "之前", "开始", "进行", "有关", "相关", "关于",
    "具体", "情况", "问题", "一般", "通常", "经过", "事项",
))
_ZH_QUESTION_CHARS = "谁几吗呢吧么哪"
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN_RUN = re.compile(rf"[{_CJK}]+")
LATIN = re.compile(r"[a-z0-9]+")
_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_NUMBER = re.compile(r"[零〇一二两三四五六七八九十百千]+")


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def numeral_digits(numeral: str) -> str:
    """A Chinese numeral in digits (两 → 2, 十五 → 15), a lone character too."""
    return _zh_number(numeral)


def _zh_number(numeral: str) -> str:
    """一 → 1, 十五 → 15, 二十四 → 24, 一百八十 → 180; anything else is left as written."""
    if any(c in "百千" for c in numeral) or len(numeral) > 4:
        total, section = 0, 0
        for c in numeral:
            if c in _DIGITS:
                section = _DIGITS[c]
            elif c == "十":
                total += (section or 1) * 10
                section = 0
            elif c == "百":
                total += section * 100
                section = 0
            elif c == "千":
                total += section * 1000
                section = 0
        return str(total + section)
    if "十" in numeral:
        tens, _, ones = numeral.partition("十")
        if "十" in ones or any(c not in _DIGITS for c in tens + ones):
            return numeral
        return str((_DIGITS[tens] if tens else 1) * 10 + (_DIGITS[ones] if ones else 0))
    if len(numeral) == 1:
        return str(_DIGITS[numeral])
    return numeral  # 一一, 三四 (a range): not one number


# 一点五 (1.5), 零点三: a decimal point between numerals — not a time of day (八点五十, 三点五分)
_ZH_DECIMAL = re.compile(r"([零〇一二两三四五六七八九十百千]+)点([零〇一二三四五六七八九]+)(?![十百千分刻])")


def _zh_decimal(match: re.Match) -> str:
    whole = _zh_number(match.group(1))
    if not whole.isdigit():
        return match.group()
    return whole + "." + "".join(str(_DIGITS[c]) for c in match.group(2))


def digits_for_numerals(text: str) -> str:
    # Only numerals before a unit or at a word edge become digits; "一线城市" stays a word,
    # because a lone 一 inside a word is rarely a count. Two or more numeral characters are.
    text = _ZH_DECIMAL.sub(_zh_decimal, text)
    return _ZH_NUMBER.sub(lambda m: _zh_number(m.group()) if len(m.group()) > 1 or m.group() == "十" else m.group(), text)


def zh_term(word: str) -> str | None:
    if len(word) < 2 or word in _ZH_STOP or word in _ZH_QUESTION_WORDS:
        return None
    # Words holding a question character (几天, 多少钱, 谁的) ask, they name nothing.
    return None if any(c in _ZH_QUESTION_CHARS for c in word) else word


def en_term(word: str) -> str | None:
    if word in _EN_STOP or word in _EN_QUESTION_WORDS or (len(word) < 2 and not word.isdigit()):
        return None
    return word


# The word after these names the kind of answer asked for (哪个部门 "which department", 什么文书
# "what document"), not something the passage must contain in those words.
_ZH_ANSWER_TYPE_BEFORE = frozenset(("哪个", "哪些", "什么", "哪种", "哪类", "何种", "哪一个", "哪一"))


def _tokens(question: str) -> list[str]:
    """jieba's cut of the question (English words and digits stay whole), numerals as digits,
    without the word that follows a "which / what kind of" question word."""
    out: list[str] = []
    after_question_word = False
    for token in _jieba_tokenizer().cut(_normalise(question), HMM=False):  # HMM guesses words ("假有")
        token = digits_for_numerals(token.strip())
        if not token:
            continue
        if after_question_word and HAN_RUN.fullmatch(token):
            after_question_word = False
            continue
        after_question_word = token in _ZH_ANSWER_TYPE_BEFORE
        out.append(token)
    return out


def key_terms(question: str) -> list[str]:
    """The content words and numbers of a question, in order, each once (十五天 and 15天 both
    give ``15``)."""
    terms: list[str] = []
    for token in _tokens(question):
        if LATIN.fullmatch(token):
            term = en_term(token)
            terms += [term] if term else []
            continue
        terms += re.findall(r"\d+", token)
        for part in HAN_RUN.findall(token):
            term = zh_term(part)
            terms += [term] if term else []
    return list(dict.fromkeys(terms))


def in_order_within(word: str, text: str, span: int) -> bool:
    """Whether the characters of ``word`` occur in order within ``span`` characters of ``text``."""
    start = text.find(word[0])
    while start != -1:
        pos, ok = start, True
        for c in word[1:]:
            pos = text.find(c, pos + 1)
            if pos == -1 or pos - start >= span:
                ok = False
                break
        if ok:
            return True
        start = text.find(word[0], start + 1)
    return False


def has_parts(word: str, text: str) -> bool:
    """A compound is present when each of its words is (坐飞机: 飞机); one missing part keeps
    it missing (刑事诉讼: 诉讼 is there, 刑事 is not), and so does a one-character adjective
    (新员工: "new" employees are not the employees past probation)."""
    parts = [w for w in _jieba_tokenizer().cut_for_search(word, HMM=False) if len(w) >= 2 and w != word]
    adjectives = [p.word for p in _zh_tagger().cut(word, HMM=False) if len(p.word) == 1 and p.flag == "a"]
    return bool(parts) and all(p in text for p in parts + adjectives)


def mentions(text: str, term: str) -> bool:
    """Whether ``text`` contains the key term ``term``: a Chinese word as written, its characters
    in order within a short span, or each of its parts; an English word as written."""
    body = digits_for_numerals(_normalise(text))
    if HAN_RUN.fullmatch(term):
        return term in body or in_order_within(term, body, 2 * len(term) + 1) or has_parts(term, body)
    return term in set(LATIN.findall(body))
