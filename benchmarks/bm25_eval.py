"""BM25 alone, inside the embedded engine: our encoder's variants against qdrant-edge's own Bm25.

Chunk-level nDCG@10 on BEIR-layout folders (corpus.jsonl, queries.jsonl, qrels.tsv).
Each variant indexes the corpus as sparse vectors with the engine's IDF modifier in a
temporary qdrant-edge shard and queries it, exactly as the vector store does.

    .venv/bin/python benchmarks/bm25_eval.py ../shared/data/retrieval/xquad-zh-chunks \
        ../shared/data/retrieval/xquad-en-chunks
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import qdrant_edge as qe

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.retrieval import bm25  # noqa: E402
from core.types import SparseVector  # noqa: E402

Encoder = tuple[Callable[[list[str]], list[SparseVector]], Callable[[str], SparseVector]]


def load(folder: Path) -> tuple[dict[str, str], dict[str, str], dict[str, set[str]]]:
    def rows(name: str) -> list[dict]:
        return [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines() if line]

    corpus = {r["_id"]: r["text"] for r in rows("corpus.jsonl")}
    queries = {r["_id"]: r["text"] for r in rows("queries.jsonl")}
    qrels: dict[str, set[str]] = {}
    for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, did, score = line.split("\t")
        if int(score) > 0:
            qrels.setdefault(qid, set()).add(did)
    return corpus, queries, qrels


def ndcg10(ranked: list[str], relevant: set[str]) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if d in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    return dcg / ideal


def ours(mode: bm25.CjkMode, avg_len: float | None) -> Encoder:
    def docs(texts: list[str]) -> list[SparseVector]:
        toks = [bm25._tokenize(t, mode) for t in texts]
        avg = avg_len or sum(map(len, toks)) / len(toks)
        return [bm25.weigh_document(t, avg) for t in toks]

    def query(text: str) -> SparseVector:
        return bm25._to_sparse({bm25.term_id(t): 1.0 for t in bm25._tokenize(text, mode)})

    return docs, query


def edge_bm25() -> Encoder:
    model = qe.Bm25(qe.Bm25Config(tokenizer=qe.TokenizerType.Multilingual))

    def conv(v: qe.SparseVector) -> SparseVector:
        return SparseVector(list(v.indices), list(v.values))

    return (lambda texts: [conv(model.embed_document(t)) for t in texts]), (lambda t: conv(model.embed_query(t)))


def evaluate(folder: Path, encoder: Encoder) -> tuple[float, float]:
    corpus, queries, qrels = load(folder)
    doc_ids = list(corpus)
    t0 = time.perf_counter()
    vectors = encoder[0]([corpus[d] for d in doc_ids])
    encode_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        cfg = qe.EdgeConfig(sparse_vectors={"bm25": qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)})
        shard = qe.EdgeShard.create(tmp, cfg)
        points = [
            qe.Point(i, {"bm25": qe.SparseVector(v.indices, v.values)}, {"doc": d})
            for i, (d, v) in enumerate(zip(doc_ids, vectors))
        ]
        shard.update(qe.UpdateOperation.upsert_points(points))
        scores = []
        for qid, rel in qrels.items():
            q = encoder[1](queries[qid])
            hits = shard.query(
                qe.QueryRequest(
                    limit=10,
                    query=qe.Query.Nearest(qe.SparseVector(q.indices, q.values), using="bm25"),
                    with_payload=True,
                )
            )
            scores.append(ndcg10([h.payload["doc"] for h in hits], rel))
        shard.close()
    return sum(scores) / len(scores), encode_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("datasets", nargs="+", type=Path)
    args = ap.parse_args()
    variants: dict[str, Encoder] = {
        "edge Bm25 (multilingual)": edge_bm25(),
        "ours jieba search": ours("search", None),
        "ours bigram": ours("bigram", None),
        "ours jieba search + bigram": ours("search+bigram", None),
        f"ours {bm25.CJK_MODE}, default avg_len": ours(bm25.CJK_MODE, bm25.DEFAULT_AVG_LEN),
    }
    print("| variant | " + " | ".join(d.name for d in args.datasets) + " |")
    print("|---|" + "---|" * len(args.datasets))
    for name, enc in variants.items():
        cells = []
        for folder in args.datasets:
            score, secs = evaluate(folder, enc)
            cells.append(f"{score:.3f} ({secs:.1f} s encode)")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
