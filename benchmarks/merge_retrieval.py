"""What the min-size merge does to retrieval: BM25 alone (rank-bm25) over merged chunks.

The XQuAD "-chunks" sets are small sentence-packed pieces (about 220 characters in English,
90 in Chinese) with one relevant piece per question: the piece holding the answer. Those
pieces, in document order, are fed to our merge step (same article = same source) at
several (chunk_size, min target) settings; a merged chunk is relevant when it holds the
relevant piece. Reported: nDCG@10, hit@1, hit@5, MRR@10, chunk count, mean chunk length, the
characters a top-5 context would hand the model, and hit within an equal context budget
(the best-ranked chunks whose lengths add up to at most BUDGET characters, at least one):
bigger chunks make "the right chunk" easier to hit, the budget column evens that out.

    .venv/bin/python benchmarks/merge_retrieval.py [retrieval_dir]
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

from rank_bm25 import BM25Okapi

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from core.chunking.merge import Piece, merge_small_pieces  # noqa: E402

DEFAULT_DIR = REPO.parent / "shared" / "data" / "retrieval"
SETS = ["xquad-en-chunks", "xquad-zh-chunks"]
BUDGET = 2000
SETTINGS = [(1000, 0), (1000, 500), (2000, 1000)]  # (chunk_size, min target); min 0 = no merge
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased Latin words plus CJK character bigrams (single characters when alone)."""
    text = text.lower()
    tokens = _WORD.findall(text)
    for run in _CJK_RUN.findall(text):
        tokens += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    return tokens


def load(folder: Path):
    rows = [json.loads(line) for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line]
    queries = {
        r["_id"]: r["text"]
        for r in map(json.loads, (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines())
    }
    qrels: dict[str, str] = {}
    for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, pid, score = line.split("\t")
        if int(score) > 0:
            qrels[qid] = pid
    return rows, queries, qrels


def evaluate(rows, queries, qrels, size: int, target: int) -> dict[str, float]:
    # Piece.start carries the piece's row number so merged chunks know what they hold.
    pieces = [Piece(r["text"], source=r["_id"].split("-p")[0], start=i) for i, r in enumerate(rows)]
    merged = merge_small_pieces(pieces, target, size)
    holder: dict[str, int] = {}
    for chunk_no, chunk in enumerate(merged):
        for row in range(chunk.start, chunk.start + chunk.merged_count):
            holder[rows[row]["_id"]] = chunk_no
    bm25 = BM25Okapi([tokenize(c.text) for c in merged])
    ndcg = hit1 = hit5 = mrr = context = in_budget = 0.0
    for qid, relevant_piece in qrels.items():
        scores = bm25.get_scores(tokenize(queries[qid]))
        ranked = sorted(range(len(merged)), key=lambda i: -scores[i])[:10]
        gold = holder[relevant_piece]
        rank = ranked.index(gold) if gold in ranked else None
        if rank is not None:
            ndcg += 1 / math.log2(rank + 2)
            mrr += 1 / (rank + 1)
            hit1 += rank == 0
            hit5 += rank < 5
        context += sum(len(merged[i].text) for i in ranked[:5])
        used = 0
        for i in ranked:
            used += len(merged[i].text)
            if used > BUDGET and i != ranked[0]:
                break
            if i == gold:
                in_budget += 1
                break
    n = len(qrels)
    return {
        "chunks": len(merged),
        "mean_len": sum(len(c.text) for c in merged) / len(merged),
        "ndcg10": ndcg / n,
        "hit1": hit1 / n,
        "hit5": hit5 / n,
        "mrr10": mrr / n,
        "top5_chars": context / n,
        "hit_budget": in_budget / n,
    }


def main() -> None:
    base = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DIR
    print(f"{'set':16} {'size':>5} {'min':>5} {'chunks':>6} {'mean len':>8} {'nDCG@10':>7} {'hit@1':>6} "
          f"{'hit@5':>6} {'MRR@10':>6} {'top-5 chars':>11} {f'hit@{BUDGET}ch':>10}")
    for name in SETS:
        rows, queries, qrels = load(base / name)
        for size, target in SETTINGS:
            r = evaluate(rows, queries, qrels, size, target)
            print(f"{name:16} {size:>5} {target:>5} {r['chunks']:>6} {r['mean_len']:>8.0f} {r['ndcg10']:>7.3f} "
                  f"{r['hit1']:>6.3f} {r['hit5']:>6.3f} {r['mrr10']:>6.3f} {r['top5_chars']:>11.0f} {r['hit_budget']:>10.3f}")


if __name__ == "__main__":
    main()
