"""Which missing words of a question name something, and which only relate what is named.

Strict mode's key-term check (``coverage.py``) refuses a question whose key term the passages
lack. A missing *noun, name or number* means the passage is about something else ("interns",
"Lucene", "实习生", "30"). A missing English *verb, adjective or adverb* is usually the relation the
question asks about, worded otherwise ("What does DPR *stand* for?", "…does DPR *reach*…", "…can no
*longer*…"): it is excused. In Chinese the verb often *is* the thing asked about (体检, 撤回, 离职 are
near misses over a handbook that never mentions them), so only function words are excused there:
prepositions, conjunctions, adverbs, pronouns, particles, direction words and modal verbs
(为了, 不能). Measured on both strict sets' tune halves (docs/answering.md).

Word classes come from dictionaries that ship in the installed packages, nothing is downloaded:
lemminflect's English lexicon (each word's possible parts of speech) and jieba's part-of-speech
tags. English words that can be a noun and a verb ("build", "reach", "model") are told apart by
their place in the question: after "to", or right after the subject of a question that has an
auxiliary ("does the approach *build* on"), a verb; otherwise a noun.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from typing import Any

from core.retrieval.bm25 import _jieba_tokenizer

_AUXILIARIES = frozenset("do does did can could will would should may might must".split())
# Words after which the next word starts a noun phrase, never a question's main verb.
_NOUN_PHRASE_START = frozenset(
    "a an the this that these those my your his her its our their what which whose each every any some "
    "no per of for on in at to from with by about into over under between during".split()
)
# A word right after one of these is the sentence's verb: "when we *ship*", "who *covers*".
_SUBJECT_PRONOUNS = frozenset("i we you they he she who".split())
_BE = frozenset("is are was were be been being am".split())
_WH_SUBJECT = frozenset("what which whose".split())
_WORD = re.compile(r"[A-Za-z0-9]+")
# jieba tags of function words (p preposition, c conjunction, d adverb, r pronoun, u particle,
# y modal particle, e interjection, o onomatopoeia, f direction word) and the modal verbs jieba
# tags as plain verbs.
_ZH_FUNCTION_TAGS = ("p", "c", "d", "r", "u", "y", "e", "o", "f")
_ZH_MODAL_VERBS = frozenset(("不能", "能够", "可能", "不得", "不可", "不会", "会不会", "愿意", "不必"))

_pos_lock = threading.Lock()
_pos: Any = None


def _zh_tagger() -> Any:
    """jieba's tagger over the same dictionary as the tokenizer (its tag table loads once)."""
    global _pos
    if _pos is None:
        with _pos_lock:
            if _pos is None:
                import jieba.posseg

                _pos = jieba.posseg.POSTokenizer(_jieba_tokenizer())
    return _pos


def _en_readings(word: str) -> dict[str, Any]:
    import lemminflect

    return lemminflect.getAllLemmas(word.lower())


def _en_names_something(words: list[str], i: int) -> bool:
    word = words[i]
    if any(c.isdigit() for c in word) or (i > 0 and word[0].isupper()):
        return True  # a number, a model name ("BM25"), a capitalised name mid-sentence
    readings = _en_readings(word)
    if not readings:
        return True  # not in the lexicon: a name or a term of art ("DPR", "lucene")
    if "NOUN" not in readings and "PROPN" not in readings:
        return False  # only a verb, adjective or adverb
    if "VERB" not in readings:
        return True
    before = words[i - 1].lower() if i else ""
    if before == "to" or before in _SUBJECT_PRONOUNS:
        return False  # "to ship", "when we ship", "who covers": the verb
    if before in _BE and word.lower().endswith("ing"):
        return False  # "what is happening": the verb, going on
    auxiliary_before = any(w.lower() in _AUXILIARIES or w.lower() in _BE for w in words[:i])
    if (not auxiliary_before and i == 2 and words[0].lower() in _WH_SUBJECT and word.lower().endswith("s")
            and not word.lower().endswith("ss") and _en_readings(before).keys() & {"NOUN", "PROPN"}
            and (i + 1 == len(words) or words[i + 1].lower() not in _BE | _AUXILIARIES)):
        return False  # "what river runs", "which conjecture holds": the subject's verb, no auxiliary before it
    if not before or before in _NOUN_PHRASE_START or before in _AUXILIARIES:
        return True  # "the approach", "per ride", "do part-time…": a noun phrase starts here
    # Right after the subject of an auxiliary question: the main verb ("does DPR reach").
    previous = _en_readings(before)
    after_subject = not previous or "NOUN" in previous or words[i - 1][0].isupper()
    asked_with_auxiliary = any(w.lower() in _AUXILIARIES for w in words[: i - 1])
    return not (after_subject and asked_with_auxiliary)


def _zh_names_something(question: str, term: str) -> bool:
    if term in _ZH_MODAL_VERBS:
        return False
    tagger = _zh_tagger()
    tag = next((p.flag for p in tagger.cut(question, HMM=False) if p.word == term), None)
    if tag is None:  # the term is part of a longer token: tag it alone; a noun in it names something
        tags = [p.flag for p in tagger.cut(term, HMM=False)]
        tag = "n" if any(t.startswith("n") for t in tags) else (tags[-1] if tags else "n")
    return not tag.startswith(_ZH_FUNCTION_TAGS)


def names_something(question: str, term: str) -> bool:
    """Whether the key term ``term`` (as ``coverage.key_terms`` gives it) of ``question`` is a noun,
    name or number (its absence refuses) rather than a relation word (its absence is excused)."""
    if term.isdigit():
        return True
    question = unicodedata.normalize("NFKC", question)
    if _WORD.fullmatch(term):
        words = _WORD.findall(question)
        at = next((i for i, w in enumerate(words) if w.lower() == term), None)
        return True if at is None else _en_names_something(words, at)
    return _zh_names_something(question.lower(), term)
