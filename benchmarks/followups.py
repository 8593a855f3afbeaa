"""Follow-up questions in normal mode (issue 21, item 4): does the second turn of a conversation
retrieve the right chunk, searched bare (before) and with the conversation (after)?

The sets are ``benchmarks/data/followups.jsonl`` (issue 21: two-turn conversations) and
``benchmarks/data/followups_refs.jsonl`` (issue 33, written after the contextualiser of issue 21
and before the answer-aware one: references to the previous answer — "这个期限", "这一条",
"除了…还有", "and who approves anything better?" — and three-turn conversations), in Chinese and
English over the handbook-and-regulation knowledge base (``benchmarks/handbook_kb.py``). ``fact``
is a string the right chunk for the last turn contains (``facts``: one per turn, null for the
opening one); ``kind`` is follow_up, or standalone (a new question in the same chat: it must not
get worse). Normal mode, the offline extractive answerer, so the
deterministic contextualiser (``core/answering/followup.py``) is what is measured; the chat-model
path is tested with a fake server (tests/answering/test_followup.py) — no model ships here.

* before: each later turn asked alone (a temporary chat: no history);
* after: the turns asked one after another in a saved chat.

The right chunk is retrieved when a passage that passed the normal threshold contains the fact.
Both halves (by a hash of the conversation id) are printed; rules were chosen on the tune half
only, and the report half is the one quoted.

    PYTHONPATH=. .venv/bin/python benchmarks/followups.py --data /work/cache/near-miss
    PYTHONPATH=. .venv/bin/python benchmarks/followups.py --sets followups_refs.jsonl --verbose
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

DATA = REPO / "benchmarks" / "data"
SETS = ("followups.jsonl", "followups_refs.jsonl", "followups_fresh.jsonl")


def right_chunk(answer, fact: str) -> bool:
    return any(r["passed"] and normalise(fact) in normalise(r["text"]) for r in answer.retrieved)


def turns_to_check(row: dict) -> list[tuple[int, str]]:
    """(turn index, fact) of every turn with a fact: the last one, or each one ``facts`` names."""
    facts = row.get("facts") or [None] * (len(row["turns"]) - 1) + [row["fact"]]
    return [(i, f) for i, f in enumerate(facts) if f]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, help="data folder to keep (reused when it already holds the KB)")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    rows = [dict(json.loads(line), set=name) for name in args.sets.split(",")
            for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    data = args.data or Path(tempfile.mkdtemp(prefix="followups-"))
    data.mkdir(parents=True, exist_ok=True)
    engine = open_engine(data)
    try:
        engine.save_settings(ADMIN, {"llm": {"provider": "extractive"}, "answering": {"follow_up_search": True}})
        counts: dict[tuple[str, str, str], list[int]] = {}
        lines = []
        for r in rows:
            checked = dict(turns_to_check(r))
            chat_id = None
            for i, turn in enumerate(r["turns"]):
                answer = engine.ask(ADMIN, turn, kbs=[KB], mode="normal", chat_id=chat_id)
                chat_id = answer.chat_id
                if i not in checked:
                    continue
                bare = engine.ask(ADMIN, turn, kbs=[KB], mode="normal", temporary=True)
                before, after = right_chunk(bare, checked[i]), right_chunk(answer, checked[i])
                for key in ((r["set"], split_of(r["id"]), r["kind"]), ("all", split_of(r["id"]), r["kind"])):
                    c = counts.setdefault(key, [0, 0, 0])
                    c[0] += 1
                    c[1] += before
                    c[2] += after
                query = next((e.data["query"] for e in answer.events if e.kind == "search_query"), turn)
                if args.verbose or not after:
                    lines.append(f"  {'ok' if after else 'MISSED'} {r['id']} turn {i + 1} ({split_of(r['id'])}, {r['kind']}) "
                                 f"before {'hit' if before else 'miss'}: {' -> '.join(r['turns'][:i + 1])} "
                                 f"(searched as: {query})")
            engine.delete_chat(ADMIN, chat_id)
        for name in [*args.sets.split(","), "all"]:
            for split in ("tune", "report"):
                for kind in ("follow_up", "standalone"):
                    n, before, after = counts.get((name, split, kind), [0, 0, 0])
                    if n:
                        print(f"{name} [{split}] {kind}: right chunk retrieved before {before}/{n} = {before / n:.1%}, "
                              f"after {after}/{n} = {after / n:.1%}")
        print("\n".join(lines))
    finally:
        engine.close()
        if args.data is None:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
