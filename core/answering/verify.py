"""Strict mode with a language model: is every fact of its answer in the passages it was given?

A model told to answer only from the passages still invents: a number the passage does not give
(16 days where it says 15), a name it never mentions ("the capital of France is Paris" after a
passage about expense claims). So before a strict answer is shown, its numbers and names are
looked up in the passages it was given — by value (十五 is 15, "3,000" is 3000, a number inside a
range or bound the passage states counts) and in either language (Paris / 巴黎, through the same
dictionary as ``answerable.py``). What no passage backs is *unsupported*; the caller then shows
the passage's own sentence (the extractive quote) or the fixed reply instead.

Numbers and names are what a reader acts on and what an invention changes; wording is not
checked (the model may say "fifteen days" for "15 days", or answer in the other language).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from core.answering.mentions import PassageText
from core.answering.reading import Term, numbers
from core.answering.coverage import digits_for_numerals
from core.answering.word_class import _zh_tagger

_CITATION = re.compile(r"\[\d{1,3}\]")
_LIST_MARKER = re.compile(r"(?m)^\s*(?:\d{1,2}[.)、]|[（(]\d{1,2}[)）])\s*")
_ENGLISH_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)(?<![\n])\b([A-Z][A-Za-z0-9]+(?:[- ][A-Z][A-Za-z0-9]+)*)\b")
_CODE = re.compile(r"\b([A-Za-z]+\d+[A-Za-z\d]*|\d+[A-Za-z]+\w*)\b")  # L7, P1, IP54, 2.4GHz
# Chinese proper-name tags of jieba: person, place, organisation, other proper noun
_ZH_NAME_TAGS = ("nr", "ns", "nt", "nz")
# Words capitalised for other reasons than being a name
_NOT_NAMES = frozenset("I The A An This That These Those It Its If When Where What Which Who How Yes No Not "
                       "Please Note According Based Under For In On At By From To With Without And Or But So".split())


@dataclass(frozen=True)
class Check:
    supported: bool
    unsupported: tuple[str, ...]  # the numbers and names of the answer that no passage backs


def check_answer(text: str, passages: list[str], ignore: tuple[str, ...] = ()) -> Check:
    """Which numbers and names of ``text`` no passage of ``passages`` backs. ``ignore``: texts the
    answer may contain that are not claims (the "not covered" phrase)."""
    body = _CITATION.sub(" ", text)
    for phrase in ignore:
        if phrase:
            body = body.replace(phrase, " ")
    body = _LIST_MARKER.sub("", body)
    judged = [PassageText(p) for p in passages]
    missing: list[str] = []
    flat = digits_for_numerals(unicodedata.normalize("NFKC", body))
    codes = {m.group(1).lower() for m in _CODE.finditer(flat)}
    without_codes = _CODE.sub(" ", flat)
    for value in dict.fromkeys(numbers(without_codes.lower())):
        term = Term(f"{value:g}", "value")
        if not any(p.mentions(term) for p in judged):
            missing.append(term.text)
    for name in sorted(codes | _names(body)):
        # a name of several words ("Finance Controller") is backed when each of its words is
        words = name.split() if " " in name else [name]
        if not any(name in p.text or all(p.mentions(Term(w, "name")) for w in words) for p in judged):
            missing.append(name)
    return Check(not missing, tuple(missing))


def _names(text: str) -> set[str]:
    out = {m.group(1).lower().replace("-", " ") for m in _ENGLISH_NAME.finditer(text) if m.group(1) not in _NOT_NAMES}
    out = {n for n in out if not any(c.isdigit() for c in n)}  # codes are read apart
    for piece in re.findall(r"[\u3400-\u9fff]+", text):
        out.update(p.word for p in _zh_tagger().cut(piece, HMM=False) if p.flag in _ZH_NAME_TAGS and len(p.word) > 1)
    return out
