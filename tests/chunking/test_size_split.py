"""Step 4: the size/overlap split prefers paragraph, line, sentence boundaries, then cuts."""

from __future__ import annotations

import re

import pytest

from core.chunking.size_split import split_to_size
from core.errors import InvalidSettings


def split(text: str, size: int, overlap: int = 0, count=len) -> list[str]:
    return [text[s:e] for s, e in split_to_size(text, size, overlap, count)]


def test_text_that_fits_is_one_piece_stripped():
    assert split("\n\n  short text  \n", 100) == ["short text"]


def test_paragraph_boundaries_come_first():
    paras = [c * 40 for c in "abc"]
    text = "\n\n".join(paras)
    assert split(text, 100) == [paras[0] + "\n\n" + paras[1], paras[2]]


def test_a_paragraph_that_fits_is_never_cut():
    small, big = "s" * 30, "b" * 90
    assert split(f"{small}\n\n{big}", 100) == [small, big]


def test_an_oversized_paragraph_is_split_on_lines():
    lines = [c * 30 for c in "abcde"]
    text = "intro\n\n" + "\n".join(lines)
    assert split(text, 70) == ["intro", "\n".join(lines[:2]), "\n".join(lines[2:4]), lines[4]]


def test_chinese_sentences_end_pieces():
    text = "".join(f"第{i}句话的内容写在这里，并且稍微长一点{p}" for i, p in zip(range(12), "。！？；" * 3))
    pieces = split(text, 60)
    assert len(pieces) > 3
    assert all(p[-1] in "。！？；" for p in pieces)
    assert "".join(pieces) == text


def test_english_sentences_end_pieces():
    text = " ".join(f"Sentence number {i} says something here{p}" for i, p in zip(range(12), ".!?" * 4))
    pieces = split(text, 100)
    assert len(pieces) > 3
    assert all(p[-1] in ".!?" for p in pieces)


def test_decimal_points_are_not_sentence_ends():
    text = "Version 3.14 is out and 2.71 too. " * 10
    assert all(not p.endswith(("3.", "2.")) for p in split(text, 80))


def test_hard_cut_when_no_boundary_exists():
    text = "x" * 250
    assert split(text, 100) == ["x" * 100, "x" * 100, "x" * 50]


def test_hard_cut_prefers_a_space_near_the_end():
    text = " ".join(["word"] * 60)  # no sentence ends, one line
    pieces = split(text, 50)
    assert all(len(p) <= 50 and p.endswith("word") and p.startswith("word") for p in pieces)


def test_overlap_repeats_the_tail_of_the_previous_piece():
    paras = [f"Paragraph {i}. " + "It has several words in it. " * 3 for i in range(6)]
    text = "\n\n".join(p.strip() for p in paras)
    pieces = split(text, 200, overlap=40)
    assert len(pieces) >= 3
    for prev, nxt in zip(pieces, pieces[1:]):
        shared = max(k for k in range(len(nxt) + 1) if prev.endswith(nxt[:k]))
        assert 0 < shared <= 40, (prev, nxt)


def test_overlap_in_hard_cut_text():
    text = "字" * 300
    pieces = split(text, 100, overlap=20)
    assert all(len(p) <= 100 for p in pieces)
    assert sum(len(p) for p in pieces) - 300 == 20 * (len(pieces) - 1)


@pytest.mark.parametrize("size", [50, 77, 130])
def test_no_piece_exceeds_the_size_in_the_callers_unit(size: int):
    words = lambda t: len(re.findall(r"\w+|[^\w\s]", t))  # noqa: E731
    text = "\n\n".join(" ".join(f"w{i}{j}" for j in range(i * 7 % 40 + 1)) + "." for i in range(30))
    pieces = split(text, size, overlap=10, count=words)
    assert pieces and max(words(p) for p in pieces) <= size
    assert max(len(p) for p in pieces) > size  # measured in words, not characters


def test_a_size_no_single_character_fits_is_refused():
    with pytest.raises(InvalidSettings, match="too small"):
        split("abc " * 100, 50, count=lambda t: 100 * len(t))
