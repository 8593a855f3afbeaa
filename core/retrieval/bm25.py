"""A Chinese-aware BM25 sparse encoder shared by both vector-store engines.

The engine stores document-side BM25 term weights and applies IDF itself (sparse vector with
the IDF modifier), so a query is just the set of its terms with weight 1.0 and the dot product
is the classic BM25 score. Both engines get vectors from this one encoder, so a knowledge base
scores the same on the embedded engine and on a Qdrant server.

Term ids are a stable hash of the token (blake2b, 31 bits): identical across processes and
machines, unlike Python's salted ``hash()``. Changing the tokenizer changes the ids, so a
knowledge base indexed with another tokenizer version needs a reindex (see ``TOKENIZER_ID``).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import unicodedata
from collections import Counter
from functools import lru_cache
from typing import Any, Literal

from core.types import SparseVector

# Recorded with a knowledge base so a change of tokenisation is detected (ids would not match).
TOKENIZER_ID = "ragdesk-bm25-v1"

K1 = 1.2
B = 0.75
# Average document length (in terms) the length normalisation assumes when the caller has no
# collection statistic. Chinese gives ~1.1 terms per character (words + bigrams), English ~0.11,
# so a 500-character chunk is ~550 or ~55 terms. Normalisation only ranks documents against
# each other; 120 instead of each corpus's true average moved nDCG@10 by at most 0.008 on the
# shared sets (benchmarks/bm25_eval.py).
DEFAULT_AVG_LEN = 120.0

CjkMode = Literal["search", "bigram", "search+bigram"]
# Measured on xquad-zh-chunks (see docs/vectorstore.md): the best of the three.
CJK_MODE: CjkMode = "search+bigram"

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A run of Han characters, or a run of other letters/digits (Latin, Cyrillic, digits...).
_RUN = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")

_EN_STOP = frozenset(
    "a an and are as at be but by for from has have he her his i in is it its of on or "
    "she that the their them they this to was were what when where which who whom why will "
    "with you your did do does how s t".split()  # s, t: what is left of "it's", "don't"
)
# Function words and particles only: content words stay searchable.
_ZH_STOP = frozenset(
    "的 了 和 是 在 也 就 都 而 及 与 着 或 之 于 被 把 让 对 从 这 那 个 吗 呢 吧 啊 么 "
    "什么 哪些 哪个 多少 怎么 怎样 为什么 如何 是否 一个 一些 这个 那个 以及 还是 我们 你们 他们".split()
)

_jieba: Any = None
_jieba_lock = threading.Lock()


def _jieba_tokenizer() -> Any:
    """jieba's dictionary takes about a second to load: do it once, on first use, quietly."""
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                logging.getLogger("jieba").setLevel(logging.WARNING)
                tok = jieba.Tokenizer()
                tok.initialize()
                _jieba = tok
    return _jieba


_stemmer: Any = None
_stemmer_lock = threading.Lock()  # a Snowball stemmer object keeps state while it works


@lru_cache(maxsize=262_144)
def _stem(word: str) -> str:
    """Snowball English stem of a lowercase ASCII word (other words pass through)."""
    global _stemmer
    if not (word.isascii() and word.isalpha()):
        return word
    with _stemmer_lock:
        if _stemmer is None:
            import snowballstemmer

            _stemmer = snowballstemmer.stemmer("english")
        return _stemmer.stemWord(word)


def _cjk_tokens(run: str, mode: CjkMode) -> list[str]:
    tokens: list[str] = []
    if mode in ("search", "search+bigram"):
        tokens.extend(w for w in _jieba_tokenizer().cut_for_search(run, HMM=True) if w.strip())
    if mode in ("bigram", "search+bigram"):
        if len(run) == 1:
            if mode == "bigram":
                tokens.append(run)
        else:
            # bigrams catch names and terms the dictionary splits differently in query and text
            tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
    return tokens


def _tokenize(text: str, mode: CjkMode) -> list[str]:
    text = unicodedata.normalize("NFKC", text).lower()
    tokens: list[str] = []
    for match in _RUN.finditer(text):
        cjk, other = match.group(1), match.group(2)
        if cjk:
            tokens.extend(t for t in _cjk_tokens(cjk, mode) if t not in _ZH_STOP)
        elif other not in _EN_STOP:
            tokens.append(_stem(other))
    return tokens


def tokenize(text: str) -> list[str]:
    """Lowercased, NFKC-normalised terms: English/number words and Chinese words."""
    return _tokenize(text, CJK_MODE)


@lru_cache(maxsize=262_144)
def term_id(token: str) -> int:
    """A stable id in [0, 2**31) for a term, the same in every process."""
    digest = hashlib.blake2b(token.encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "little") & 0x7FFFFFFF


def _to_sparse(weights: dict[int, float]) -> SparseVector:
    items = sorted(weights.items())
    return SparseVector(indices=[i for i, _ in items], values=[w for _, w in items])


def _term_counts(tokens: list[str]) -> Counter[int]:
    # Distinct tokens may collide on a 31-bit id (rare): their counts add up, as one term.
    return Counter(term_id(t) for t in tokens)


def weigh_document(tokens: list[str], avg_len: float = DEFAULT_AVG_LEN) -> SparseVector:
    """BM25 document-side weights of already tokenised text (see ``encode_document``)."""
    if avg_len <= 0:
        raise ValueError(f"avg_len must be positive, got {avg_len}")
    norm = K1 * (1 - B + B * len(tokens) / avg_len)
    counts = _term_counts(tokens)
    return _to_sparse({tid: tf * (K1 + 1) / (tf + norm) for tid, tf in counts.items()})


def encode_document(text: str, avg_len: float = DEFAULT_AVG_LEN) -> SparseVector:
    """Sparse vector of a chunk: tf*(k1+1)/(tf+k1*(1-b+b*len/avg_len)) per term."""
    return weigh_document(tokenize(text), avg_len)


def query_words(text: str) -> set[str]:
    """Distinct words of a query (jieba words, English stems), without the recall bigrams."""
    return set(_tokenize(text, "search"))


def query_word_count(text: str) -> int:
    """The unit in which retrieval/calibration.py measures how well a chunk matches the query."""
    return len(query_words(text))


QUERY_BIGRAM_WEIGHT = 1.0


def encode_query(text: str) -> SparseVector:
    """Sparse vector of a query: each distinct term with weight 1.0 (IDF comes from the engine)."""
    if QUERY_BIGRAM_WEIGHT == 1.0:
        return _to_sparse({tid: 1.0 for tid in _term_counts(tokenize(text))})
    words = {term_id(t) for t in _tokenize(text, "search")}
    return _to_sparse({tid: (1.0 if tid in words else QUERY_BIGRAM_WEIGHT) for tid in _term_counts(tokenize(text))})
