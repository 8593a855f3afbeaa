"""Measure the score bands that core/retrieval/calibration.py maps to [0, 1].

For each embedder, on the shared chunk-level XQuAD sets (zh + en) and Cranfield: the median
raw cosine between a question and its relevant chunk ("relevant"), and between a question and
chunks ranked 20-40 that are not relevant ("unrelated"); the median per-query-term BM25
score of relevant chunks; and, for off-topic questions (chit-chat, weather, recipes), the best
calibrated score — which strict mode's 0.5 and normal mode's 0.30 must reject.

    .venv/bin/python benchmarks/calibrate_scores.py [all-minilm-l6-v2|multilingual-e5-small ...]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.config import RuntimeConfig  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.evaluation import load_dataset  # noqa: E402
from core.ingest.service import Upload  # noqa: E402
from core.retrieval import bm25  # noqa: E402
from core.types import SYSTEM_ACTOR  # noqa: E402

SETS = ["xquad-zh-chunks", "xquad-en-chunks", "cranfield-en"]
OFF_TOPIC = ["今天天气怎么样？", "你好，最近过得好吗", "红烧肉怎么做才好吃", "推荐一部好看的电影",
             "What's the weather like tomorrow?", "hello, how are you", "How do I bake sourdough bread?",
             "Who will win the next world cup?"]
QUERIES_PER_SET = 150


def measure(model: str) -> None:
    shared = ROOT.parent / "shared" / "data" / "retrieval"
    rel_cos, unrel_cos, rel_bm25_per_term, best_rel_score = [], [], [], []
    off_best: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        config = RuntimeConfig(data_dir=Path(tmp), database_url=f"sqlite:///{tmp}/c.db")
        with Engine(config) as engine:
            engine.save_settings(SYSTEM_ACTOR, {"embedding": {"model": model}})
            for name in SETS:
                data = load_dataset(shared / name)
                kb = engine.create_kb(SYSTEM_ACTOR, name)
                t0 = time.perf_counter()
                results = engine.ingest(SYSTEM_ACTOR, kb.id, [
                    Upload(f"{i}.md", (f"# {t}\n\n{x}" if t else x).encode()) for i, (t, x) in data.corpus.items()])
                doc_of = {r.file_id: r.name[:-3] for r in results}
                print(f"{model} {name}: ingested {len(results)} docs in {time.perf_counter() - t0:.0f} s", flush=True)
                for qid, q in list(data.queries.items())[:QUERIES_PER_SET]:
                    res = engine.search(SYSTEM_ACTOR, q, [kb.id], mode="hybrid", top_k=40, min_score=0)
                    n_terms = max(1, len(bm25.encode_query(q).indices))
                    for rank, h in enumerate(res.hits):
                        if doc_of.get(h.file_id) in data.qrels[qid]:
                            rel_cos.append(h.dense)
                            rel_bm25_per_term.append((h.bm25 or 0) / n_terms)
                            best_rel_score.append(h.score)
                        elif rank >= 20:
                            unrel_cos.append(h.dense)
                for q in OFF_TOPIC:
                    res = engine.search(SYSTEM_ACTOR, q, [kb.id], mode="hybrid", top_k=1, min_score=0)
                    off_best.append(res.hits[0].score if res.hits else 0.0)
    med = statistics.median
    print(f"\n== {model}")
    print(f"dense cosine: relevant median {med(rel_cos):.3f}, unrelated median {med(unrel_cos):.3f}")
    print(f"bm25 per query term, relevant: median {med(rel_bm25_per_term):.2f}, p25 {statistics.quantiles(rel_bm25_per_term, n=4)[0]:.2f}")
    print(f"calibrated hybrid score of relevant chunks: median {med(best_rel_score):.3f}, "
          f"p10 {statistics.quantiles(best_rel_score, n=10)[0]:.3f}")
    print(f"off-topic questions, best calibrated score: max {max(off_best):.3f}, median {med(off_best):.3f}")


if __name__ == "__main__":
    for m in sys.argv[1:] or ["multilingual-e5-small", "all-minilm-l6-v2"]:
        measure(m)
