"""Strict mode's judgement at scale, on documents nobody wrote questions for to fit the product: XQuAD.

XQuAD's 1,190 questions were written by crowd workers for SQuAD over Wikipedia paragraphs and
translated professionally into Chinese (the shared sets are parallel). For each question and each
language pair (question → knowledge base: zh→zh, en→en, zh→en, en→zh) strict mode's gate runs on
the chunk-level knowledge base twice:

* **answerable**: as searched, the chunks holding the gold answer among them — right = the gate
  answers from a chunk that holds a gold answer string;
* **not answerable**: the same search with every chunk holding a gold answer string taken out (as if
  the knowledge base lacked that paragraph) — right = the gate refuses. What is left are passages
  of the same article, in the question's vocabulary: the hardest near misses there are.

The gate is the product's (threshold 0.34, five passages, ``answerable.judge``); the split is
XQuAD's article (tune / report, benchmarks/retrieval_candidates.py's rule).

    PYTHONPATH=. .venv/bin/python benchmarks/strict_xquad.py [--max-queries N] [--pairs zh>en,en>zh]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from cross_language import DATA, ingest  # noqa: E402
from embedding_cache import install_cache  # noqa: E402
from retrieval_candidates import split_of  # noqa: E402

from core.answering.answerable import best_evidence, judge  # noqa: E402
from core.answering.reading import read_question  # noqa: E402
from core.config import RuntimeConfig  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.evaluation import load_dataset  # noqa: E402
from core.settings.model import StrictModeSettings  # noqa: E402
from core.types import SYSTEM_ACTOR  # noqa: E402


def _norm(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).lower().split())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-queries", type=int, default=0, help="per split (0 = all)")
    ap.add_argument("--pairs", default="zh>zh,en>en,zh>en,en>zh")
    ap.add_argument("--dump", type=Path, help="write each question's outcome here (JSON lines), to compare two runs")
    args = ap.parse_args()
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    install_cache("multilingual-e5-small")
    strict = StrictModeSettings()
    sets = {lang: load_dataset(DATA / f"xquad-{lang}-chunks") for lang in ("zh", "en")}
    halves: dict[str, list[str]] = {"tune": [], "report": []}
    for qid in sets["en"].queries:
        if qid in sets["zh"].queries and sets["en"].answers.get(qid) and sets["zh"].answers.get(qid):
            halves[split_of(sets["en"], qid)].append(qid)
    if args.max_queries:
        halves = {k: v[: args.max_queries] for k, v in halves.items()}
    with tempfile.TemporaryDirectory(prefix="ragdesk-strict-xquad-") as tmp:
        config = RuntimeConfig(data_dir=Path(tmp), database_url=f"sqlite:///{Path(tmp) / 'x.db'}")
        with Engine(config) as engine:
            engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "multilingual-e5-small"}})
            t0 = time.perf_counter()
            for kb in ("en", "zh"):
                ingest(engine, kb, [(kb, sets[kb].corpus)])
            print(f"ingest {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
            print("| question → knowledge base | split | questions | answerable: answered from the right chunk "
                  "| not answerable: refused | threshold alone: refused |")
            print("|---|---|---|---|---|---|")
            for pair in args.pairs.split(","):
                q_lang, kb = pair.split(">")
                for split, qids in halves.items():
                    tally: dict[str, int] = defaultdict(int)
                    for qid in qids:
                        question = sets[q_lang].queries[qid]
                        golds = [_norm(a) for a in sets[kb].answers[qid] if a.strip()]
                        hits = engine.search(SYSTEM_ACTOR, question, [kb], top_k=15,
                                             min_score=strict.rag_strict_min_similarity).hits
                        holds = [any(g in _norm(h.text) for g in golds) for h in hits]
                        asked = read_question(question)
                        outcome = {"pair": pair, "split": split, "qid": qid, "question": question,
                                   "named": [t.text for t in asked.named]}
                        for name, kept in (("answerable", hits), ("missing", [h for h, g in zip(hits, holds) if not g])):
                            top = kept[: strict.rag_strict_max_results]
                            texts = [f"{h.source_name}\n{' / '.join(h.heading_path)}\n{h.text}" for h in top]
                            judged = judge(asked, texts, [h.text for h in top]) if top else None
                            if name == "answerable":
                                # the passage the product answers from: the best evidence among those that answer
                                found = best_evidence(asked, [h.text for h in top], judged.answering) if (
                                    judged is not None and judged.answerable) else None
                                first = found.passage if found else (judged.passage if judged else None)
                                right = judged is not None and judged.answerable and any(
                                    g in _norm(top[first].text) for g in golds)
                                tally["answered"] += right
                                outcome["answered"] = right
                                if not right:  # why: the gold chunk not among those judged, refused, or another chunk
                                    gold_ranks = [i for i, g in enumerate(holds[: len(top)]) if g]
                                    outcome["gold_rank"] = gold_ranks[0] if gold_ranks else None
                                    if judged is not None:
                                        outcome["missing"] = list(judged.missing)
                                        outcome["no_value"] = judged.no_value
                                        outcome["judged_answerable"] = judged.answerable
                            else:
                                refused = judged is None or not judged.answerable
                                tally["refused"] += refused
                                tally["threshold_refused"] += not top
                                outcome["refused"] = refused
                                if not refused:
                                    outcome["let_in_by"] = top[judged.answering[0]].text[:300]
                                elif judged is not None:
                                    outcome["near_missing"] = list(judged.missing)
                                    outcome["near_no_value"] = judged.no_value
                        if dump:
                            dump.write(json.dumps(outcome, ensure_ascii=False) + "\n")
                    n = max(1, len(qids))
                    print(f"| {q_lang} → {kb} | {split} | {len(qids)} | {tally['answered'] / n:.3f} "
                          f"| {tally['refused'] / n:.3f} | {tally['threshold_refused'] / n:.3f} |", flush=True)


if __name__ == "__main__":
    main()
