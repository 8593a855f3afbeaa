"""Measure the score bands that core/retrieval/calibration.py maps to [0, 1].

For each embedder, on the shared chunk-level XQuAD sets (zh + en) and Cranfield: by how much
a question's relevant chunk beats the query's anchor baseline (the dense margin), the BM25
score per query term of relevant chunks, the calibrated hybrid score of relevant chunks, and
how many in-scope and off-topic (chit-chat, weather, recipes) questions pass strict mode's 0.5
and normal mode's 0.30 (and strict's default, whatever it is now).

    .venv/bin/python benchmarks/calibrate_scores.py [--sets xquad-zh-chunks,...] [all-minilm-l6-v2|multilingual-e5-small ...]
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
from core.settings.model import StrictModeSettings  # noqa: E402
from core.types import SYSTEM_ACTOR  # noqa: E402

SETS = ["xquad-zh-chunks", "xquad-en-chunks", "cranfield-en"]
OFF_TOPIC = ["今天天气怎么样？", "你好", "谢谢", "在吗", "你好，最近过得好吗", "红烧肉怎么做才好吃", "推荐一部好看的电影",
             "What's the weather like tomorrow?", "hello, how are you", "How do I bake sourdough bread?",
             "Who will win the next world cup?", "hello", "thanks!"]
QUERIES_PER_SET = 150


def measure(model: str) -> None:
    shared = ROOT.parent / "shared" / "data" / "retrieval"
    margins, rel_bm25_per_term, rel_score, top_in = [], [], [], []
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
                    n_terms = max(1, bm25.query_word_count(q))
                    if res.hits:
                        top_in.append(res.hits[0].score)
                    for h in res.hits:
                        if doc_of.get(h.file_id) in data.qrels[qid]:
                            margins.append(h.dense - res.baseline)
                            rel_bm25_per_term.append((h.bm25 or 0) / n_terms)
                            rel_score.append(h.score)
                            break
                for q in OFF_TOPIC:
                    res = engine.search(SYSTEM_ACTOR, q, [kb.id], mode="hybrid", top_k=1, min_score=0)
                    off_best.append(res.hits[0].score if res.hits else 0.0)
    med = statistics.median
    q10 = lambda xs: statistics.quantiles(xs, n=10)[0]  # noqa: E731
    share = lambda xs, t: sum(x >= t for x in xs) / len(xs)  # noqa: E731
    print(f"\n== {model}")
    print(f"relevant chunk's cosine minus the query baseline: p10 {q10(margins):.3f}, median {med(margins):.3f}")
    print(f"bm25 per query word of the relevant chunk: median {med(rel_bm25_per_term):.2f}")
    print(f"calibrated hybrid score of the relevant chunk: p10 {q10(rel_score):.3f}, median {med(rel_score):.3f}")
    strict = StrictModeSettings().rag_strict_min_similarity
    print(f"in-scope questions whose best hit passes 0.30: {share(top_in, 0.3):.1%}, passes {strict}: "
          f"{share(top_in, strict):.1%}, passes 0.50: {share(top_in, 0.5):.1%}")
    print(f"off-topic questions ({len(off_best)} runs): passes 0.30: {share(off_best, 0.3):.1%}, passes {strict}: "
          f"{share(off_best, strict):.1%}; max {max(off_best):.3f}, median {med(off_best):.3f}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--sets" in args:
        i = args.index("--sets")
        SETS[:] = args[i + 1].split(",")
        del args[i:i + 2]
    for m in args or ["multilingual-e5-small", "all-minilm-l6-v2"]:
        measure(m)
