"""HashEmbedder: the fast, model-free embedder the other test suites use."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from core.embeddings.fake import HashEmbedder
from core.errors import InvalidSettings
from tests.conftest import REPO_ROOT

PASSAGES = [
    "Employees may carry over up to five days of annual leave into the next year.",
    "The cafeteria serves breakfast from seven until nine every weekday.",
    "员工每年享有十五天带薪年假，未休完的年假可顺延至次年。",
    "公司食堂工作日早上七点到九点供应早餐。",
    "Quarterly sales grew by twelve percent thanks to the new product line.",
]


@pytest.mark.parametrize("dimension", [8, 64, 300])
def test_shape_dtype_and_unit_norm(dimension):
    emb = HashEmbedder(dimension)
    vectors = emb.embed_documents(PASSAGES + ["", "!!!"])
    assert emb.id == f"test/hash-{dimension}" and emb.dimension == dimension
    assert vectors.shape == (7, dimension) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert emb.embed_query("leave").shape == (dimension,)
    assert emb.embed_documents([]).shape == (0, dimension)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("how many days of annual leave carry over", 0),
        ("when is breakfast served", 1),
        ("年假可以顺延吗", 2),
        ("食堂早餐几点", 3),
        ("sales growth this quarter", 4),
    ],
)
def test_query_sharing_words_ranks_its_passage_first(query, expected):
    emb = HashEmbedder(64)
    scores = emb.embed_documents(PASSAGES) @ emb.embed_query(query)
    assert int(np.argmax(scores)) == expected, scores


def test_similar_texts_are_closer_than_unrelated_ones():
    emb = HashEmbedder(64)
    a, b, c = emb.embed_documents(["retrieval augmented generation", "retrieval-augmented generator", "quarterly sales"])
    assert a @ b > a @ c + 0.3


def test_same_vectors_in_another_process():
    # Python's hash() is salted per process; the embedder must not depend on it
    code = "from core.embeddings.fake import HashEmbedder; print(HashEmbedder(64).embed_query('年假 leave').tolist())"
    outputs = {
        subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True,
                       env={"PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
    np.testing.assert_allclose(eval(outputs.pop()), HashEmbedder(64).embed_query("年假 leave"), atol=1e-6)


def test_count_tokens_counts_words_and_cjk_characters():
    emb = HashEmbedder()
    assert emb.count_tokens("") == 0
    assert emb.count_tokens("annual leave policy") == 3
    assert emb.count_tokens("年假 policy") == 3
    assert emb.count_tokens("年假policy 2024") == 4


@pytest.mark.parametrize("dimension", [0, 7, 5000])
def test_dimension_out_of_range_is_invalid(dimension):
    with pytest.raises(InvalidSettings, match="between 8 and 4096"):
        HashEmbedder(dimension)
