"""Cross-language retrieval (issue 32, item 1): Chinese questions over English chunks and the reverse,
beside the same-language rows, on the parallel XQuAD chunk sets, split tune / report by article.

XQuAD-zh and XQuAD-en are professional translations of the same paragraphs and questions (query ids
are shared), so every question has a gold chunk in both languages. Three knowledge bases go through
the real Engine: the English chunks, the Chinese chunks, and both together (a mixed-language
knowledge base, where either language's gold chunk counts). Each question is searched as the chat
searches (hybrid, the product's settings), and the rows give, per question language → knowledge base:

* nDCG@10 and R@5 of the gold chunk (chunk level);
* pass@0.30 / pass@0.34: the share of questions whose gold chunk reaches the normal / strict
  threshold (what decides whether the answer can use it at all);
* off-topic: the highest score any of a few off-topic questions gets (below 0.34 = refused).

The split is XQuAD's article (benchmarks/retrieval_candidates.py's rule): choices are made on tune,
report is quoted. Embeddings are cached (benchmarks/embedding_cache.py).

    PYTHONPATH=. .venv/bin/python benchmarks/cross_language.py [--max-queries N] [--pairs zh>en,en>zh]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from embedding_cache import install_cache  # noqa: E402
from retrieval_candidates import split_of  # noqa: E402

from core.config import RuntimeConfig  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.evaluation import load_dataset, mrr_at, ndcg_at, recall_at  # noqa: E402
from core.ingest.service import Upload  # noqa: E402
from core.types import SYSTEM_ACTOR  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "retrieval"
OFF_TOPIC = {
    "en": ["What is a good recipe for banana bread?", "Who won the Eurovision Song Contest in 2019?",
           "How do I reset my router's Wi-Fi password?", "What's the weather like in Lisbon in April?"],
    "zh": ["香蕉面包怎么做比较好吃？", "2019年欧洲歌唱大赛谁赢了？", "路由器的无线密码怎么重置？", "四月份里斯本的天气怎么样？"],
}


def ingest(engine: Engine, kb: str, corpora: list[dict]) -> dict[str, str]:
    """Each chunk as its own document; returns file id -> chunk id."""
    engine.create_kb(SYSTEM_ACTOR, kb)
    uploads, names = [], {}
    for lang, corpus in corpora:
        for doc_id, (title, text) in corpus.items():
            name = f"{lang}-{doc_id}.md"
            names[name] = doc_id
            uploads.append(Upload(name, (f"# {title}\n\n{text}" if title else text).encode("utf-8")))
    results = engine.ingest(SYSTEM_ACTOR, kb, uploads)
    return {r.file_id: f"{r.name.split('-', 1)[0]}:{names[r.name]}" for r in results if r.ok}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-queries", type=int, default=0, help="per split (0 = all)")
    ap.add_argument("--pairs", default="zh>zh,en>en,zh>en,en>zh,zh>mixed,en>mixed")
    ap.add_argument("--embedder", default="multilingual-e5-small")
    ap.add_argument("--mode", default="hybrid", help="search mode (hybrid = the product's)")
    args = ap.parse_args()
    cache = install_cache(args.embedder)
    sets = {lang: load_dataset(DATA / f"xquad-{lang}-chunks") for lang in ("zh", "en")}
    # the split is by article, the same for both languages (shared query ids, parallel articles)
    halves: dict[str, list[str]] = {"tune": [], "report": []}
    for qid in sets["en"].queries:
        if qid in sets["zh"].queries:
            halves[split_of(sets["en"], qid)].append(qid)
    if args.max_queries:
        halves = {k: v[: args.max_queries] for k, v in halves.items()}
    with tempfile.TemporaryDirectory(prefix="ragdesk-xlang-") as tmp:
        config = RuntimeConfig(data_dir=Path(tmp), database_url=f"sqlite:///{Path(tmp) / 'x.db'}")
        with Engine(config) as engine:
            engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": args.embedder}})
            t0 = time.perf_counter()
            chunk_of = {}
            for kb, langs in (("en", ["en"]), ("zh", ["zh"]), ("mixed", ["zh", "en"])):
                chunk_of[kb] = ingest(engine, kb, [(lang, sets[lang].corpus) for lang in langs])
            print(f"ingest {time.perf_counter() - t0:.0f} s (cache hits {cache.hits}, misses {cache.misses})",
                  file=sys.stderr, flush=True)
            print("| question → knowledge base | split | questions | nDCG@10 | R@5 | MRR@10 | gold passes 0.30 | gold passes 0.34 | off-topic max |")
            print("|---|---|---|---|---|---|---|---|---|")
            for pair in args.pairs.split(","):
                q_lang, kb = pair.split(">")
                gold_langs = ["zh", "en"] if kb == "mixed" else [kb]
                off = max(max((h.score for h in engine.search(SYSTEM_ACTOR, q, [kb], mode=args.mode, top_k=5,
                                                                 min_score=0.0).hits),
                              default=0.0) for q in OFF_TOPIC[q_lang])
                for split, qids in halves.items():
                    ndcg = r5 = mrr = p30 = p34 = 0.0
                    for qid in qids:
                        rel = {f"{g}:{c}": 1 for g in gold_langs for c in sets[g].qrels[qid]}
                        result = engine.search(SYSTEM_ACTOR, sets[q_lang].queries[qid], [kb], mode=args.mode,
                                               top_k=50, min_score=0.0)
                        ranked, gold_score = [], 0.0
                        for h in result.hits:
                            c = chunk_of[kb].get(h.file_id)
                            if c and c not in ranked:
                                ranked.append(c)
                                if c in rel:
                                    gold_score = max(gold_score, h.score)
                        ndcg += ndcg_at(ranked, rel)
                        r5 += recall_at(ranked, rel, 5) if kb != "mixed" else float(any(c in rel for c in ranked[:5]))
                        mrr += mrr_at(ranked, rel)
                        p30 += gold_score >= 0.30
                        p34 += gold_score >= 0.34
                    n = max(1, len(qids))
                    print(f"| {q_lang} → {kb} | {split} | {len(qids)} | {ndcg / n:.3f} | {r5 / n:.3f} | {mrr / n:.3f} "
                          f"| {p30 / n:.3f} | {p34 / n:.3f} | {off:.3f} |", flush=True)


if __name__ == "__main__":
    main()
