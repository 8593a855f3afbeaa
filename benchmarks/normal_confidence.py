"""Normal mode's weak-match signal (core/answering/confidence.py) on the covered / off-topic sets.

Two sets, each over its own documents, the default embedder, the extractive answerer, normal mode:

* the demo (``core.demo``: its knowledge base and its question set; expected "-" = off-topic);
* strict recall (``benchmarks/data/strict_recall.jsonl`` over its shared documents, as
  ``benchmarks/strict_recall.py`` ingests them; no facts = off-topic).

Per set it counts covered questions answered (a hit, a citation, the expected fact in the text)
and how many of them are labelled weak, and off-topic questions presented as a plain
knowledge-base answer (a hit, not weak) — before this signal every off-topic hit was one —, labelled
weak, or not answered from the knowledge base at all.

    PYTHONPATH=. .venv/bin/python benchmarks/normal_confidence.py [--data /tmp/nc] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.strict_recall import QUESTIONS, open_engine  # noqa: E402
from core.answering.scoring import contains_fact  # noqa: E402
from core.config import RuntimeConfig  # noqa: E402
from core.demo import DEMO_KB, demo_questions, load_demo  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.types import SYSTEM_ACTOR as ADMIN  # noqa: E402


def evaluate(engine: Engine, items: list[tuple[str, list[str] | None]], kbs: list[str] | None, verbose: bool) -> dict:
    """items: (question, the facts the answer must all contain, or None for off-topic)."""
    counts = dict(covered=0, answered=0, answered_weak=0, off_topic=0, presented=0, weak=0, not_from_kb=0)
    for question, facts in items:
        a = engine.ask(ADMIN, question, kbs=kbs, mode="normal", temporary=True)
        top = max((r["score"] for r in a.retrieved), default=0.0)
        if facts is not None:
            counts["covered"] += 1
            ok = a.hit and bool(a.citations) and all(contains_fact(a.text, f) for f in facts)
            counts["answered"] += ok
            counts["answered_weak"] += ok and a.weak_match
            tag = ("answered" if ok else "MISSED") + (" (weak)" if a.weak_match else "")
        else:
            counts["off_topic"] += 1
            counts["presented"] += a.hit and not a.weak_match
            counts["weak"] += a.hit and a.weak_match
            counts["not_from_kb"] += not a.hit
            tag = "PRESENTED AS KB" if a.hit and not a.weak_match else ("weak" if a.hit else "no hit")
        if verbose or tag.startswith(("MISSED", "PRESENTED")) or a.weak_match:
            print(f"  {tag:<16} top {top:.3f}  {question}")
    return counts


def report(name: str, c: dict) -> None:
    print(f"{name}: covered answered {c['answered']}/{c['covered']} (labelled weak {c['answered_weak']}); "
          f"off-topic {c['off_topic']}: presented as a knowledge-base answer before {c['presented'] + c['weak']}, "
          f"now {c['presented']} (weak {c['weak']}, no hit {c['not_from_kb']})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, help="parent folder to keep (reused: a second run skips ingest)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    root = args.data or Path(tempfile.mkdtemp(prefix="normal-confidence-"))
    try:
        demo_dir = root / "demo"
        demo_dir.mkdir(parents=True, exist_ok=True)
        with Engine(RuntimeConfig(data_dir=demo_dir, database_url=f"sqlite:///{demo_dir / 'ragdesk.db'}")) as engine:
            load_demo(engine, ADMIN)
            items = [(i.question, None if i.expected == "-" else [i.expected]) for i in demo_questions()]
            demo = evaluate(engine, items, [DEMO_KB], args.verbose)
        sr_dir = root / "strict-recall"
        sr_dir.mkdir(parents=True, exist_ok=True)
        engine = open_engine(sr_dir)
        try:
            rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
            items = [(r["question"], r["facts"] or None) for r in rows]
            recall = evaluate(engine, items, None, args.verbose)
        finally:
            engine.close()
        report("demo", demo)
        report("strict recall", recall)
    finally:
        if args.data is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
