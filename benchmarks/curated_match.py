"""How close must a question be to a curated one? Paraphrases should get the curated answer,
neighbouring questions (same words, another subject) should not.

benchmarks/data/curated_match.jsonl: 16 curated questions (8 English, 8 Chinese, HR/travel
policy), each with 3 paraphrases and 3 neighbours, split by curated question into "tune" and
"report". The threshold is chosen on tune (the lowest whose neighbours hit at most 1 in 20) and
reported on report. Scored with the matcher answering uses (core/curated/match.py: cosine, the
other-subject veto) and the embedder named.

    python benchmarks/curated_match.py [--embedder multilingual-e5-small] [--embedder all-minilm-l6-v2]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.curated.match import judge  # noqa: E402
from core.embeddings.factory import make_embedder  # noqa: E402
from core.settings.model import EmbeddingSettings  # noqa: E402

DATA = Path(__file__).parent / "data" / "curated_match.jsonl"
THRESHOLDS = [round(0.80 + 0.01 * i, 2) for i in range(20)]
MAX_NEIGHBOUR_RATE = 0.05


def scored(embedder_name: str) -> list[tuple[str, str, str, float, str]]:
    """(split, kind p|n, question, cosine, curated question) for every test question."""
    embedder = make_embedder(EmbeddingSettings(provider="local", model=embedder_name))
    out = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        curated = embedder.embed_query(row["question"])
        for kind in ("paraphrases", "neighbours"):
            for q in row[kind]:
                out.append((row["split"], kind[0], q, float(embedder.embed_query(q) @ curated), row["question"]))
    return out


def hits(rows, split: str, kind: str, threshold: float, veto: bool = True) -> tuple[int, int]:
    chosen = [r for r in rows if r[0] == split and r[1] == kind]
    matched = sum(judge(q, c, cos, threshold).matched if veto else cos >= threshold for _, _, q, cos, c in chosen)
    return matched, len(chosen)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedder", action="append")
    args = ap.parse_args()
    for name in args.embedder or ["multilingual-e5-small"]:
        rows = scored(name)
        print(f"\n{name}: paraphrases that get the curated answer / neighbours that wrongly get it")
        print(f"{'threshold':>9}  {'tune para':>9} {'tune neigh':>10}  {'report para':>11} {'report neigh':>12}  (no veto: report para/neigh)")
        for t in THRESHOLDS:
            tp, tn, rp, rn = (hits(rows, s, k, t) for s in ("tune", "report") for k in ("p", "n"))
            bp, bn = hits(rows, "report", "p", t, veto=False), hits(rows, "report", "n", t, veto=False)
            print(f"{t:>9.2f}  {tp[0]:>4}/{tp[1]:<4} {tn[0]:>5}/{tn[1]:<4}  {rp[0]:>6}/{rp[1]:<4} {rn[0]:>7}/{rn[1]:<4}"
                  f"  ({bp[0]}/{bp[1]}, {bn[0]}/{bn[1]})")
        ok = [t for t in THRESHOLDS if hits(rows, "tune", "n", t)[0] <= MAX_NEIGHBOUR_RATE * hits(rows, "tune", "n", t)[1]]
        if ok:
            t = min(ok)
            (rp, rpn), (rn, rnn) = hits(rows, "report", "p", t), hits(rows, "report", "n", t)
            print(f"chosen on tune: {t:.2f} → report split: paraphrases {rp}/{rpn} ({rp / rpn:.0%}), "
                  f"neighbours {rn}/{rnn} ({rn / rnn:.0%})")


if __name__ == "__main__":
    main()
