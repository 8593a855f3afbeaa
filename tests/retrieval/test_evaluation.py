"""`python -m core eval`: metrics computed right, datasets read right, real sets scored."""

from __future__ import annotations

import json
import math

import pytest

from core.errors import InvalidInput
from core.evaluation import evaluate, load_dataset, mrr_at, ndcg_at, recall_at
from tests.cli.test_cli import run_cli
from tests.conftest import shared_path


def test_metrics_match_hand_computed_values():
    rel = {"a": 3, "b": 1}
    ranked = ["x", "a", "b"]
    dcg = (2**3 - 1) / math.log2(3) + (2**1 - 1) / math.log2(4)
    idcg = (2**3 - 1) / math.log2(2) + (2**1 - 1) / math.log2(3)
    assert ndcg_at(ranked, rel) == pytest.approx(dcg / idcg)
    assert recall_at(ranked, rel, 1) == 0 and recall_at(ranked, rel, 3) == 1
    assert mrr_at(ranked, rel) == pytest.approx(0.5)
    assert ndcg_at(["a", "b"], rel) == pytest.approx(1.0)


@pytest.fixture
def tiny_beir(tmp_path):
    docs = {
        "d1": ("员工休假", "员工每年享有十五天带薪年假，须提前两周申请。"),
        "d2": ("报销流程", "差旅费用报销须在出差结束后三十天内提交发票。"),
        "d3": ("Security", "Laptops must use full-disk encryption and lock after five minutes."),
        "d4": ("Parking", "Visitors park in lot B and register at the front desk."),
    }
    queries = {"q1": "每年有几天带薪年假", "q2": "报销发票多久内提交", "q3": "laptop encryption rule",
               "q4": "where do visitors park"}
    qrels = {"q1": "d1", "q2": "d2", "q3": "d3", "q4": "d4"}
    answers = {"q1": ["十五天"], "q2": ["三十天"], "q3": ["full-disk encryption"], "q4": ["lot B"]}
    with (tmp_path / "corpus.jsonl").open("w") as fh:
        for i, (title, text) in docs.items():
            fh.write(json.dumps({"_id": i, "title": title, "text": text}, ensure_ascii=False) + "\n")
    with (tmp_path / "queries.jsonl").open("w") as fh:
        for i, text in queries.items():
            fh.write(json.dumps({"_id": i, "text": text}, ensure_ascii=False) + "\n")
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in qrels.items()))
    with (tmp_path / "answers.jsonl").open("w") as fh:
        for i, a in answers.items():
            fh.write(json.dumps({"_id": i, "answers": a}, ensure_ascii=False) + "\n")
    return tmp_path


def test_load_dataset_skips_the_header_and_keeps_grades(tiny_beir):
    data = load_dataset(tiny_beir)
    assert len(data.corpus) == 4 and data.qrels["q1"] == {"d1": 1} and data.answers["q2"] == ["三十天"]


def test_not_a_beir_folder_is_a_clear_error(tmp_path):
    with pytest.raises(InvalidInput, match="corpus.jsonl is missing"):
        load_dataset(tmp_path)


def test_evaluate_scores_every_mode(tiny_beir):
    report = evaluate(tiny_beir, embedder="hash-64", modes=["bm25", "hybrid"])
    assert report.documents == 4 and report.chunks >= 4
    by_mode = {s.mode: s for s in report.scores}
    assert by_mode["bm25"].ndcg10 == pytest.approx(1.0)
    assert by_mode["bm25"].answer_hit == pytest.approx(1.0)
    assert by_mode["hybrid"].recall10 == pytest.approx(1.0)
    assert by_mode["hybrid"].latency_p95_ms >= by_mode["hybrid"].latency_p50_ms > 0


def test_eval_cli_json(tiny_beir, data_dir):
    out = run_cli(data_dir, "--json", "eval", str(tiny_beir), "--embedder", "hash-64", "--mode", "bm25")
    report = json.loads(out.stdout)
    assert report["scores"][0]["mode"] == "bm25" and report["scores"][0]["queries"] == 4


@pytest.mark.shared
def test_bm25_channel_reaches_the_anchor_on_xquad_zh_chunks():
    """rank-bm25 scored 0.879 nDCG@10 here; our engine-side BM25 with Chinese tokenisation must not be worse."""
    report = evaluate(shared_path("retrieval", "xquad-zh-chunks"), embedder="hash-64", modes=["bm25"], max_queries=300)
    assert report.scores[0].ndcg10 >= 0.85


def test_an_empty_corpus_document_is_skipped_not_fatal(tiny_beir):
    with (tiny_beir / "corpus.jsonl").open("a") as fh:
        fh.write(json.dumps({"_id": "empty", "title": "", "text": ""}) + "\n")
    report = evaluate(tiny_beir, embedder="hash-64", modes=["bm25"])
    assert report.skipped == 1 and report.documents == 5 and report.scores[0].ndcg10 == pytest.approx(1.0)
