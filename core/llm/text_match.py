"""Sentence splitting and lexical features for the extractive answerer (Chinese and English).

Chinese is matched two ways: by content characters, which no segmentation can break (年假 and
年休假 share 年 and 假), and by jieba words, which reward the question's phrases appearing
whole. English is lower-cased words reduced to their Snowball stems.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import jieba
import snowballstemmer

from core.llm.base import is_cjk

# A sentence ends after Chinese 。！？；, after ! ? (any script), or after ". " in English before a
# capital — not after an abbreviation (et al. 2019, vs. 42.9%, e.g. BM25). An English ";" joins
# clauses of one sentence (citations "(Lee, 2019; Kim, 2020)" too), so it does not split.
_SENTENCE_END = re.compile(
    r"(?<=[。！？；])(?![”」』）)。！？；])"  # after Chinese punctuation...
    r"|(?<=[。！？；][”」』）)])"  # ...or after the closing quote that follows it
    r"|(?<=[!?])\s+"  # ASCII ! ? then a space
    r"|(?<=[a-z0-9%)\]\"'][.])(?<!\bal\.)(?<!\bvs\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bcf\.)(?<!\bno\.)"
    r"(?<!\bfig\.)(?<!\bapprox\.)\s+(?=[A-Z0-9“\"'(\[])"  # ". " then a capital: not 3.5, not e.g. x
)
_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+|>\s*)")
_WORD = re.compile(r"[a-z0-9][a-z0-9'%.-]*[a-z0-9%]|[a-z0-9]")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")

ZH_STOP = set(
    "的 了 是 在 有 和 与 及 或 吗 呢 吧 啊 呀 么 把 被 给 从 到 由 就 都 也 还 又 而 但 并 等 之 其 该 此 这 那 "
    "几 哪 谁 我 你 他 她 它 们 个 些 对 为 以 于 上 下 中 内 如 若 则 即 才 可 能 会 要 应 请 "
    "什么 怎么 怎样 怎么样 如何 多少 多久 多长 哪些 哪个 哪里 为什么 是否 能否 可否 可以 能够 需要 应该 "
    "请问 我们 你们 他们 这个 那个 一个 这些 那些 以及 或者 还是 规定 有关 关于 相关".split()
)
EN_STOP = set(
    "a an the is are was were be been being of to in on for with by at from and or not no nor what which who whom "
    "whose when where why how do does did done can could should would will shall may might must i you he she it we "
    "they me my your our their its this that these those there here as if than then so such any all each many much "
    "about into over under up down out off get gets got has have had please tell me us per one".split()
)
_QUANTITY_Q = re.compile(r"几|多少|多长|多久|多大|多高|多少钱|how (?:many|much|long|often|old)|what percentage", re.I)
_QUESTION_WORDS = re.compile(
    r"什么时候|何时|从何时|什么情况下|什么情况|哪些情况|什么情形下|什么条件下|几|多少|多长|多久|多大|多高|什么|怎么样|怎么|怎样|如何|哪些|哪个|哪里|哪|为什么|为何|是否|能否|可否"
    r"|有没有|吗|呢|请问|开始(?=施行|生效|实施)"
    r"|一次(?=[？?]?$)"  # "多久备份一次": the frequency asked, not a term to match
)
ZH_STOP_CHARS = set("的了是在有和与及或吗呢吧啊呀么把被给从到由就都也还又而但并等之其该此这那几哪谁我你他她它们个些对为以于如若则即才请")
_QUANTITY = re.compile(
    r"\d|[零一二两三四五六七八九十百千万半]+(?:个)?(?:天|日|年|月|周|星期|小时|分钟|次|元|倍|人|岁|级|工作日|%)"
)


_NUM = r"(?:\d+|[零一二两三四五六七八九十百千半]+)"
_EN_NUM = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|sixty|ninety)"


@dataclass(frozen=True)
class AnswerKind:
    """What kind of fact a question asks for, and how to tell a sentence that states one."""

    name: str
    asks: re.Pattern
    states: re.Pattern
    bonus: float


# Checked in order; a question may ask several kinds. Bonuses are shares of a perfect lexical score.
ANSWER_KINDS = (
    AnswerKind(
        "duration",
        re.compile(r"多长时间|多久|多少天|几天|几日|几个月|多少日|期限|时限|期间|何时之前|"
                   r"how long|how often|how many (?:days|weeks|months|years|hours)|within how|deadline|time limit", re.I),
        # a length of time, or a frequency ("每周" answers "多久备份一次", "weekly" answers "how often")
        re.compile(rf"{_NUM}\s*(?:个)?(?:工作日|日|天|月|年|周|星期|小时|分钟)|每(?:天|日|周|星期|月|季度|年)|"
                   rf"\b{_EN_NUM}[- ](?:business |working |calendar )?(?:days?|weeks?|months?|years?|hours?)\b|"
                   r"\b(?:daily|weekly|monthly|quarterly|yearly|annually|every (?:day|week|month|year))\b", re.I),
        0.3,
    ),
    AnswerKind(
        "who",
        re.compile(r"谁|哪个部门|哪个机关|哪个单位|哪一级|哪级|什么部门|什么机关|哪个机构|由哪|"
                   r"\bwho\b|\bwhom\b|which (?:department|office|body|agency|authority|court|person|role)", re.I),
        re.compile(r"部门|机关|机构|检察长|委员会|负责|受理|批准|"
                   r"\b(?:trustee|court|department|office|agency|judge|committee|manager|officer|director|"
                   r"appoints?|supervises?|responsible)\b", re.I),
        0.25,
    ),
    AnswerKind(
        "place",
        re.compile(r"哪里|在哪|什么地方|何处|哪儿|\bwhere\b", re.I),
        re.compile(r"\b(?:room|floor|building|office|desk|reception|address|street|avenue|road)\b|"
                   r"\d+\s*(?:楼|层|号|室)|会议室|前台|服务台|办公室|地址|大厦", re.I),
        0.25,
    ),
    AnswerKind(
        "effective",
        re.compile(r"施行|生效|实施|起效|effective|take effect|come into force|in force", re.I),
        re.compile(r"施行|生效|effective|takes? effect|into force", re.I),
        0.3,
    ),
    AnswerKind(
        "document",
        re.compile(r"什么文书|哪些文书|什么材料|哪些材料|制作什么|出具什么|提交什么|什么书|"
                   r"what (?:document|form|paper|report|certificate)s?", re.I),
        re.compile(r"《[^》]+》|文书|材料|证明|document|form|report|certificate|receipt", re.I),
        0.25,
    ),
)
_ASKS_LIST = re.compile(r"哪些|有哪几|哪几种|什么情形|什么情况|哪种情况|哪几项|\bwhat are\b|\bwhich\b.*\b(?:are|include)\b|\blist\b", re.I)


def answer_kinds(question: str) -> list[AnswerKind]:
    return [k for k in ANSWER_KINDS if k.asks.search(question)]


def asks_list(question: str) -> bool:
    return bool(_ASKS_LIST.search(question))


def has_cjk(text: str) -> bool:
    return any(is_cjk(ch) for ch in text)


def split_line(line: str) -> list[str]:
    """The sentences of one line of text (soft line breaks already joined), in order."""
    return [piece.strip() for piece in _SENTENCE_END.split(line) if piece and piece.strip()]


def split_sentences(text: str) -> list[str]:
    """Sentences in reading order, line by line, markup stripped, empty pieces dropped."""
    out: list[str] = []
    for line in text.splitlines():
        out.extend(split_line(_MARKUP.sub("", line).strip()))
    return out


def looks_like_heading(sentence: str) -> bool:
    """A short line without closing punctuation (第三章 休假, 'Annual leave'): context, not an answer."""
    if sentence[-1:] in "。！？；.!?;:：”\"'）)]":
        return False
    return (len(sentence) <= 16) if has_cjk(sentence) else (len(sentence.split()) <= 6)


_stemmer_lock = threading.Lock()  # a Snowball stemmer keeps state while it works
_stemmer = snowballstemmer.stemmer("english")


@lru_cache(maxsize=100_000)
def _stem(word: str) -> str:
    """Snowball English stem (translation/translate, played/play); other scripts pass through."""
    if not (word.isascii() and word.isalpha()):
        return word
    with _stemmer_lock:
        return _stemmer.stemWord(word)


_EN_QUESTION_PHRASES = re.compile(r"\bstands? for\b|\bis meant by\b", re.I)


def strip_question_words(question: str) -> str:
    """Drop 几/多少/什么/吗, "stand for"... so only what the question is about is matched."""
    return _EN_QUESTION_PHRASES.sub(" ", _QUESTION_WORDS.sub(" ", question))


def normalize(text: str) -> str:
    """NFKC (full-width ５天 → 5天) and lower case: the form every comparison uses."""
    return unicodedata.normalize("NFKC", text).lower()


def units(text: str) -> set[str]:
    """Content characters (Chinese) and word stems (English): matching that no segmentation can break."""
    lowered = normalize(text)
    out = {ch for run in _CJK_RUN.findall(lowered) for ch in run if ch not in ZH_STOP_CHARS}
    out.update(_stem(w) for w in _WORD.findall(lowered) if w not in EN_STOP)
    return out


def zh_words(text: str) -> set[str]:
    """jieba words of two or more characters (search mode, so long words also yield their parts)."""
    return {
        w
        for run in _CJK_RUN.findall(normalize(text))
        for w in jieba.lcut_for_search(run)
        if len(w) > 1 and w not in ZH_STOP
    }


def asks_quantity(question: str) -> bool:
    return bool(_QUANTITY_Q.search(question))


def states_quantity(sentence: str) -> bool:
    return bool(_QUANTITY.search(sentence))


def idf(document_frequency: int, n_documents: int) -> float:
    """BM25-style IDF, always positive; a term no document contains gets the highest weight."""
    return math.log(1 + (n_documents - document_frequency + 0.5) / (document_frequency + 0.5))


def idf_table(documents: list[set[str]]) -> dict[str, float]:
    n = len(documents)
    df = Counter(term for doc in documents for term in doc)
    return {term: idf(d, n) for term, d in df.items()}
