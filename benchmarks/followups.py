"""Follow-up questions in normal mode (issue 21, item 4): does the second turn of a conversation
retrieve the right chunk, searched bare (before) and with the conversation (after)?

The set is ``benchmarks/data/followups.jsonl``: two-turn conversations in Chinese and English over
the handbook-and-regulation knowledge base (``benchmarks/handbook_kb.py``); ``fact`` is a string
the right chunk for the second turn contains; ``kind`` is follow_up, or standalone (a new question
in the same chat: it must not get worse). Normal mode, the offline extractive answerer, so the
deterministic contextualiser (``core/answering/followup.py``) is what is measured; the chat-model
path is tested with a fake server (tests/answering/test_followup.py) — no model ships here.

* before: the second turn asked alone (a temporary chat: no history);
* after: the first turn asked in a saved chat, then the second turn in it.

The right chunk is retrieved when a passage that passed the normal threshold contains the fact.
Both halves (by a hash of the id) are printed; the rule has no fitted parameter, and the report
half is the one quoted.

    PYTHONPATH=. .venv/bin/python benchmarks/followups.py --data /work/cache/near-miss
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

from benchmarks.handbook_kb import KB, open_engine, split_of  # noqa: E402
from core.answering.scoring import normalise  # noqa: E402
from core.types import SYSTEM_ACTOR as ADMIN  # noqa: E402

CONVERSATIONS = REPO / "benchmarks" / "data" / "followups.jsonl"


def right_chunk(answer, fact: str) -> bool:
    return any(r["passed"] and normalise(fact) in normalise(r["text"]) for r in answer.retrieved)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, help="data folder to keep (reused when it already holds the KB)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    rows = [json.loads(line) for line in CONVERSATIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    data = args.data or Path(tempfile.mkdtemp(prefix="followups-"))
    data.mkdir(parents=True, exist_ok=True)
    engine = open_engine(data)
    try:
        engine.save_settings(ADMIN, {"llm": {"provider": "extractive"}, "answering": {"follow_up_search": True}})
        counts: dict[tuple[str, str], list[int]] = {}
        lines = []
        for r in rows:
            first, second = r["turns"]
            bare = engine.ask(ADMIN, second, kbs=[KB], mode="normal", temporary=True)
            opening = engine.ask(ADMIN, first, kbs=[KB], mode="normal")
            follow = engine.ask(ADMIN, second, kbs=[KB], mode="normal", chat_id=opening.chat_id)
            engine.delete_chat(ADMIN, opening.chat_id)
            before, after = right_chunk(bare, r["fact"]), right_chunk(follow, r["fact"])
            c = counts.setdefault((split_of(r["id"]), r["kind"]), [0, 0, 0])
            c[0] += 1
            c[1] += before
            c[2] += after
            query = next((e.data["query"] for e in follow.events if e.kind == "search_query"), second)
            if args.verbose or not after:
                lines.append(f"  {'ok' if after else 'MISSED'} {r['id']} ({split_of(r['id'])}, {r['kind']}) "
                             f"before {'hit' if before else 'miss'}: {first} -> {second} (searched as: {query})")
        for split in ("tune", "report"):
            for kind in ("follow_up", "standalone"):
                n, before, after = counts.get((split, kind), [0, 0, 0])
                if n:
                    print(f"[{split}] {kind}: right chunk retrieved before {before}/{n} = {before / n:.1%}, "
                          f"after {after}/{n} = {after / n:.1%}")
        print("\n".join(lines))
    finally:
        engine.close()
        if args.data is None:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
