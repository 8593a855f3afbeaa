"""How often the extractive answerer's quoted sentences contain the gold answer (XQuAD zh / en).

Each question gets three passages, as retrieval would give them: its gold paragraph and two other
paragraphs of the same article, in a seeded random order. Reported: answered share, the share
whose quoted sentences contain a gold answer span, the share citing the gold passage, the number
of sentences quoted, quoted characters as a share of the passages' characters, and time per
answer, and how often the question is "answered" from three paragraphs of another article
(it should not be). A baseline quotes the first two sentences of passage [1] (what a "show the top hit" answer does).

    .venv/bin/python benchmarks/extractive_xquad.py [limit] ['{"min_score": 0.25}']
"""

from __future__ import annotations

import json
import logging
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import jieba  # noqa: E402

from core.llm.extractive import ExtractiveAnswerer, Passage  # noqa: E402
from core.llm.text_match import split_sentences  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "retrieval"


KNOBS: dict = {}  # e.g. {"min_score": 0.25}, from argv[2] as JSON, to see the trade-off


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s).lower()


def run(lang: str, limit: int) -> None:
    root = DATA / f"xquad-{lang}"
    corpus = {d["_id"]: d["text"] for d in _jsonl(root / "corpus.jsonl")}
    questions = {d["_id"]: d["text"] for d in _jsonl(root / "queries.jsonl")}
    answers = {d["_id"]: d["answers"] for d in _jsonl(root / "answers.jsonl")}
    gold = {}
    for line in (root / "qrels.tsv").read_text().splitlines()[1:]:
        qid, pid, _ = line.split("\t")
        gold[qid] = pid
    by_article = defaultdict(list)
    for pid in corpus:
        by_article[pid.rsplit("-", 1)[0]].append(pid)
    rng = random.Random(7)
    answerer = ExtractiveAnswerer(**KNOBS)
    stats = defaultdict(list)
    for qid in sorted(gold)[:limit]:
        pid = gold[qid]
        others = [p for p in by_article[pid.rsplit("-", 1)[0]] if p != pid]
        pids = [pid, *rng.sample(others, min(2, len(others)))]
        rng.shuffle(pids)
        passages = [Passage(i + 1, corpus[p], p) for i, p in enumerate(pids)]
        gold_n = pids.index(pid) + 1
        spans = [_norm(a) for a in answers[qid]]
        t0 = time.perf_counter()
        result = answerer.answer(questions[qid], passages)
        stats["ms"].append((time.perf_counter() - t0) * 1000)
        quoted = _norm(" ".join(q.sentence for q in result.quotes))
        stats["answered"].append(result.answered)
        stats["contains"].append(any(s in quoted for s in spans))
        stats["cites_gold"].append(gold_n in result.citations)
        stats["sentences"].append(len(result.quotes))
        stats["char_share"].append(len(quoted) / max(1, len(_norm(" ".join(p.text for p in passages)))))
        # The same question over three paragraphs of another article: it should not be answered.
        foreign = rng.choice([a for a in by_article if a != pid.rsplit("-", 1)[0]])
        wrong = [Passage(i + 1, corpus[p], p) for i, p in enumerate(rng.sample(by_article[foreign], 3))]
        stats["false_answer"].append(answerer.answer(questions[qid], wrong).answered)
        # Harder: the other paragraphs of the same article, gold removed (related, mostly not answering).
        near = [Passage(i + 1, corpus[p], p) for i, p in enumerate(pids) if p != pid]
        stats["near_answer"].append(answerer.answer(questions[qid], near).answered if near else False)
        lead = _norm(" ".join(split_sentences(passages[0].text)[:2]))
        stats["baseline"].append(any(s in lead for s in spans))
    n = len(stats["ms"])
    pct = lambda k: 100 * sum(stats[k]) / n  # noqa: E731
    print(
        f"xquad-{lang} n={n}: answered {pct('answered'):.1f}%, gold answer in quotes {pct('contains'):.1f}% "
        f"(baseline lead-2 of [1]: {pct('baseline'):.1f}%), cites gold passage {pct('cites_gold'):.1f}%, "
        f"sentences quoted mean {statistics.mean(stats['sentences']):.2f}, quoted chars {100 * statistics.mean(stats['char_share']):.1f}% "
        f"of the passages, {statistics.median(stats['ms']):.1f} ms median per answer; "
        f"answered from another article's paragraphs {pct('false_answer'):.1f}%, "
        f"from the same article without the gold paragraph {pct('near_answer'):.1f}%"
    )


if __name__ == "__main__":
    jieba.setLogLevel(logging.WARNING)
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    KNOBS.update(json.loads(sys.argv[2]) if len(sys.argv) > 2 else {})
    for lang in ("zh", "en"):
        run(lang, limit)
