"""The min-size forward merge, edge case by edge case as seed 000 lists them."""

from __future__ import annotations

import pytest

from core.chunking.merge import SEPARATOR, Piece, merge_small_pieces


def pieces(*texts: str, source: str = "a.md") -> list[Piece]:
    return [Piece(t, source, start=i * 1000, heading_path=(f"h{i}",)) for i, t in enumerate(texts)]


def test_target_zero_merges_nothing():
    given = pieces("a", "b", "c")
    assert merge_small_pieces(given, 0, 100) == given


def test_run_of_tiny_chunks_folds_until_the_target_is_reached():
    out = merge_small_pieces(pieces(*(c * 10 for c in "abcde")), min_target=30, max_size=100)
    # 10 -> 22 -> 34 (>= 30: full), then d and e fold into the next accumulator
    assert [p.text for p in out] == [
        SEPARATOR.join(["a" * 10, "b" * 10, "c" * 10]),
        SEPARATOR.join(["d" * 10, "e" * 10]),
    ]
    assert [p.merged_count for p in out] == [3, 2]


def test_small_chunk_before_a_big_one_stays_small():
    given = pieces("x" * 10, "y" * 95)
    out = merge_small_pieces(given, min_target=50, max_size=100)
    assert [p.text for p in out] == ["x" * 10, "y" * 95]


def test_last_chunk_stays_small_when_nothing_follows():
    out = merge_small_pieces(pieces("a" * 60, "b" * 5), min_target=50, max_size=100)
    assert [p.text for p in out] == ["a" * 60, "b" * 5]


def test_a_small_chunk_after_a_satisfied_one_starts_a_new_accumulator():
    out = merge_small_pieces(pieces("a" * 60, "b" * 5, "c" * 5), min_target=50, max_size=100)
    assert [p.text for p in out] == ["a" * 60, "b" * 5 + SEPARATOR + "c" * 5]


def test_different_documents_never_merge():
    given = pieces("a", "b", source="one.md") + pieces("c", "d", source="two.md")
    out = merge_small_pieces(given, min_target=50, max_size=100)
    assert [(p.source, p.text) for p in out] == [("one.md", "a\n\nb"), ("two.md", "c\n\nd")]


@pytest.mark.parametrize("second, merges", [(48, True), (49, False)])
def test_the_merged_text_never_exceeds_the_chunk_size(second: int, merges: bool):
    # 50 + len("\n\n") + 48 == 100 == max_size: allowed; one more character is not
    out = merge_small_pieces(pieces("a" * 50, "b" * second), min_target=80, max_size=100)
    assert len(out) == (1 if merges else 2)
    assert all(len(p.text) <= 100 for p in out)


def test_pieces_are_joined_with_a_blank_line():
    out = merge_small_pieces(pieces("first line", "second line"), min_target=50, max_size=100)
    assert out[0].text == "first line\n\nsecond line"


def test_merged_chunk_keeps_the_metadata_of_its_first_piece():
    out = merge_small_pieces(pieces("a", "b", "c"), min_target=50, max_size=100)
    assert len(out) == 1
    assert (out[0].start, out[0].heading_path, out[0].source) == (0, ("h0",), "a.md")
    assert out[0].merged_count == 3


def test_nothing_is_dropped():
    texts = [c * n for c, n in zip("abcdefghij", [5, 70, 3, 3, 99, 1, 40, 40, 40, 2])]
    out = merge_small_pieces(pieces(*texts), min_target=60, max_size=100)
    assert "".join(p.text.replace(SEPARATOR, "") for p in out) == "".join(texts)
    assert sum(p.merged_count for p in out) == len(texts)


def test_sizes_are_measured_with_the_given_counter():
    words = lambda text: len(text.split())  # noqa: E731
    given = pieces("one two", "three four five", "six")
    # by words: 2 < 4 -> absorb (5 words <= 10), 5 >= 4 -> stop
    out = merge_small_pieces(given, min_target=4, max_size=10, count=words)
    assert [p.text for p in out] == ["one two\n\nthree four five", "six"]
    # by characters the same numbers mean something else: 7 < 8 but 24 characters exceed 10
    assert [p.text for p in merge_small_pieces(given, 8, 10)] == ["one two", "three four five", "six"]
