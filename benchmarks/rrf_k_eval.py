"""Which RRF constant for the engine's hybrid query: nDCG@10 of dense, BM25 and RRF with k = 2 / 60.

MiniLM (the bundled English-strong model) dense vectors + our BM25 sparse vectors in an EdgeStore,
prefetch 50, chunk-level qrels. A few minutes per dataset (embedding dominates).

    .venv/bin/python benchmarks/rrf_k_eval.py ../shared/data/retrieval/xquad-en-chunks \
        ../shared/data/retrieval/xquad-zh-chunks
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core.vectorstore.edge as edge  # noqa: E402
from core.embeddings.minilm import MiniLMEmbedder  # noqa: E402
from core.retrieval import bm25  # noqa: E402
from core.types import SearchFilter, VectorPoint  # noqa: E402

ALL = SearchFilter()


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def ndcg10(hits: list, relevant: set[str]) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, h in enumerate(hits) if h.payload["file_id"] in relevant)
    return dcg / sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))


def main() -> None:
    embedder = MiniLMEmbedder()
    for folder in map(Path, sys.argv[1:]):
        corpus = rows(folder / "corpus.jsonl")
        queries = {q["_id"]: q["text"] for q in rows(folder / "queries.jsonl")}
        relevant: dict[str, set[str]] = {}
        for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
            qid, doc, _ = line.split("\t")
            relevant.setdefault(qid, set()).add(doc)
        qids = list(relevant)
        docs = embedder.embed_documents([r["text"] for r in corpus])
        qvecs = [embedder.embed_query(queries[q]).tolist() for q in qids]
        qsparse = [bm25.encode_query(queries[q]) for q in qids]
        tokens = [bm25.tokenize(r["text"]) for r in corpus]
        avg = sum(map(len, tokens)) / len(tokens)
        with tempfile.TemporaryDirectory() as tmp, edge.EdgeStore(Path(tmp)) as store:
            store.create_collection("eval", docs.shape[1])
            store.upsert(
                "eval",
                [
                    VectorPoint(str(uuid.uuid4()), d.tolist(), bm25.weigh_document(t, avg), {"file_id": r["_id"], "kb_id": "k"})
                    for r, d, t in zip(corpus, docs, tokens)
                ],
            )
            runs = {
                "dense": lambda i: store.search_dense("eval", qvecs[i], 10, ALL),
                "bm25": lambda i: store.search_sparse("eval", qsparse[i], 10, ALL),
            }

            def hybrid(k: int):
                def run(i: int) -> list:
                    edge.RRF_K = k  # the engine module reads its constant at query time
                    return store.search_hybrid("eval", qvecs[i], qsparse[i], 10, ALL, 50)

                return run

            runs["rrf k=2"], runs["rrf k=60"] = hybrid(2), hybrid(60)
            scores = {name: sum(ndcg10(run(i), relevant[q]) for i, q in enumerate(qids)) / len(qids) for name, run in runs.items()}
        print(folder.name, {name: round(v, 3) for name, v in scores.items()}, flush=True)


if __name__ == "__main__":
    main()
