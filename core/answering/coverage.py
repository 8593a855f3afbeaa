"""Strict mode's query-coverage check: the question's key terms must appear in what was found.

A near miss is a question in the knowledge base's own domain and vocabulary that the knowledge
base does not answer: "How many days of bereavement leave…?" over a handbook that grants annual,
sick and parental leave, "实习生每年有几天年假？" over one that never mentions interns. Its best
passage scores like a covered question's (the same chapter, most of the same words), so no
score threshold separates the two. What separates them is the word the knowledge base lacks.

So, before strict mode answers, every *key term* of the question — a content word or number,
not a question word or particle — must occur in the passages that passed the threshold (their
text, heading path and file name). A question with a key term the passages never mention is
refused like a miss: the fixed reply, no model call, and a notice naming the missing terms.

Matching is deliberately forgiving where languages vary their form, and nowhere else:

* English words are compared by Snowball stem ("approves" ~ "approved"), so inflection is
  no miss; a synonym is ("staff" for "employee"): strict mode would rather refuse than guess.
* Chinese is cut by jieba into words; single characters (mostly particles and measure words)
  are no key terms, nor is the word after 哪个 / 什么 (the kind of answer asked for). A word counts as present when it is in the text, or when its characters
  occur in order within a short span (``每年`` in ``每个自然年``, ``检察院`` in ``人民检察院``), or when
  each of its own words is (``坐飞机``: ``飞机``; ``刑事诉讼`` stays missing without ``刑事``).
* Chinese numerals and digits are one form (``15天`` ~ ``十五天``).

It is a general rule over words, not tuned to any question set: measured on
``benchmarks/data/strict_near_miss.jsonl`` (tune and report splits, docs/answering.md).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from core.answering.word_class import names_something
from core.retrieval.bm25 import _EN_STOP, _ZH_STOP, _jieba_tokenizer, _stem

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
_HAN_RUN = re.compile(rf"[{_CJK}]+")
_LATIN = re.compile(r"[a-z0-9]+")
_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_NUMBER = re.compile(r"[零〇一二两三四五六七八九十百千]+")


@dataclass(frozen=True)
class Coverage:
    terms: tuple[str, ...]  # the question's key terms, as written (normalised)
    missing: tuple[str, ...]  # those the passages do not contain
    question: str = ""  # as asked: where the missing words' classes are read (word_class.py)

    @property
    def covered(self) -> bool:
        return not self.missing


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


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


def _digits_for_numerals(text: str) -> str:
    # Only numerals before a unit or at a word edge become digits; "一线城市" stays a word,
    # because a lone 一 inside a word is rarely a count. Two or more numeral characters are.
    return _ZH_NUMBER.sub(lambda m: _zh_number(m.group()) if len(m.group()) > 1 or m.group() == "十" else m.group(), text)


def _zh_term(word: str) -> str | None:
    if len(word) < 2 or word in _ZH_STOP or word in _ZH_QUESTION_WORDS:
        return None
    # Words holding a question character (几天, 多少钱, 谁的) ask, they name nothing.
    return None if any(c in _ZH_QUESTION_CHARS for c in word) else word


def _en_term(word: str) -> str | None:
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
        token = _digits_for_numerals(token.strip())
        if not token:
            continue
        if after_question_word and _HAN_RUN.fullmatch(token):
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
        if _LATIN.fullmatch(token):
            term = _en_term(token)
            terms += [term] if term else []
            continue
        terms += re.findall(r"\d+", token)
        for part in _HAN_RUN.findall(token):
            term = _zh_term(part)
            terms += [term] if term else []
    return list(dict.fromkeys(terms))


def _in_order_within(word: str, text: str, span: int) -> bool:
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


class _Passages:
    """The passages' text in the forms a key term is looked up in."""

    def __init__(self, texts: list[str]):
        self.text = _digits_for_numerals(_normalise("\n".join(texts)))
        self.stems = {_stem(w) for w in _LATIN.findall(self.text)}

    def has(self, term: str) -> bool:
        if _HAN_RUN.fullmatch(term):
            return term in self.text or _in_order_within(term, self.text, 2 * len(term) + 1) or _has_parts(term, self.text)
        return term in self.stems or _stem(term) in self.stems


def _has_parts(word: str, text: str) -> bool:
    """A compound is present when each of its words is (坐飞机: 飞机); one missing part keeps
    it missing (刑事诉讼: 诉讼 is there, 刑事 is not)."""
    parts = [w for w in _jieba_tokenizer().cut_for_search(word, HMM=False) if len(w) >= 2 and w != word]
    return bool(parts) and all(p in text for p in parts)


def coverage(question: str, texts: list[str]) -> Coverage:
    """Which key terms of ``question`` the passages ``texts`` do not contain."""
    terms = key_terms(question)
    passages = _Passages(texts)
    return Coverage(tuple(terms), tuple(t for t in terms if not passages.has(t)), question)


def unexcused(cover: Coverage, best_score: float, excuse_score: float,
              excuse_relation_words: bool = False) -> tuple[str, ...]:
    """The missing terms that still refuse the question.

    With ``excuse_relation_words``, a missing word that only relates what the question names (an
    English verb, adjective or adverb; a Chinese function word) is excused whatever the score:
    only nouns, names and numbers refuse (``word_class.py``). Then a passage scoring far above the threshold (``excuse_score``) is about what was asked even when
    the question is worded with words it lacks ("What does DPR *stand* for?", "…采取什么*措施*"):
    its missing words are excused. A missing number never is: "a number the document does not
    give" is the near miss no score can tell apart ("二审判决生效后*30*日内…").
    """
    missing = cover.missing
    if excuse_relation_words:
        missing = tuple(t for t in missing if names_something(cover.question, t))
    if best_score < excuse_score:
        return missing
    return tuple(t for t in missing if t.isdigit())
