"""HashEmbedder: a real, deterministic, dependency-free embedder for fast tests.

Features are hashed into ``dimension`` buckets with a sign bit (the hashing trick): whole
words, character trigrams of each word (so "retrieval" and "retrieve" overlap), and for CJK
text single characters and bigrams (Chinese has no spaces to find words by). Counts are
damped with log(1+tf) so one repeated word cannot dominate. Texts that share words share
features, hence point in similar directions; that is all the fast tests need.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter

import numpy as np

from core.errors import InvalidSettings

_WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# An empty or symbol-only text still needs a unit vector.
_EMPTY_FEATURE = "\x00empty"


class HashEmbedder:
    def __init__(self, dimension: int = 64):
        if not 8 <= dimension <= 4096:
            raise InvalidSettings(f"hash embedder dimension must be between 8 and 4096 (got {dimension})")
        self.dimension = dimension
        self.id = f"test/hash-{dimension}"

    def __repr__(self) -> str:
        return f"HashEmbedder(dimension={self.dimension})"

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._vector(text)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_documents(texts)  # queries and passages alike here

    def count_tokens(self, text: str) -> int:
        """Words plus CJK characters: this embedder's own notion of a token."""
        return len(_tokens(text))

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dimension, dtype=np.float64)
        features = _features(text) or Counter({_EMPTY_FEATURE: 1})
        for feature, count in features.items():
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self.dimension
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[bucket] += sign * math.log1p(count)
        norm = np.linalg.norm(vec)
        if norm == 0:  # signed features cancelled out exactly (rare): any fixed unit vector will do
            return _unit(self.dimension)
        return (vec / norm).astype(np.float32)


def _unit(dimension: int) -> np.ndarray:
    vec = np.zeros(dimension, dtype=np.float32)
    vec[0] = 1.0
    return vec


def _tokens(text: str) -> list[str]:
    """Lower-cased words, with every CJK character standing alone."""
    tokens: list[str] = []
    for word in _WORD.findall(text.lower()):
        if _CJK.search(word):
            tokens.extend(_split_cjk(word))
        else:
            tokens.append(word)
    return tokens


def _split_cjk(word: str) -> list[str]:
    # "abc中文def" -> ["abc", "中", "文", "def"]
    parts: list[str] = []
    latin = ""
    for ch in word:
        if _CJK.match(ch):
            if latin:
                parts.append(latin)
                latin = ""
            parts.append(ch)
        else:
            latin += ch
    if latin:
        parts.append(latin)
    return parts


def _features(text: str) -> Counter[str]:
    features: Counter[str] = Counter()
    tokens = _tokens(text)
    for i, token in enumerate(tokens):
        if _CJK.match(token):
            features["c:" + token] += 1
            if i + 1 < len(tokens) and _CJK.match(tokens[i + 1]):
                features["b:" + token + tokens[i + 1]] += 1
            continue
        features["w:" + token] += 2  # a whole-word match counts more than shared trigrams
        padded = f"<{token}>"
        for j in range(len(padded) - 2):
            features["g:" + padded[j : j + 3]] += 1
    return features
