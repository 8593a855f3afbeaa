"""Web search cost per message: engine call + page loads + chunking/embedding/indexing + retrieval,
against a local SearXNG-speaking fake server serving pages of realistic size (no internet here).

Each question's search returns 3 pages of about 6,000 characters of article text (a page is
4,000-8,000+ tokens in the wild; these are on the small side). Reported: ``web_search_ms`` (the
time the web step adds to an answer) p50/p95, and the answer's total, for the embedder given, then
each stage's wall and CPU milliseconds (p50 over the questions; ``Answer.timings_ms["web_<stage>_ms"]``
and ``["web_<stage>_cpu_ms"]``, core/websearch/stages.py) and its share of the web step's CPU. On a
shared machine compare the CPU column and the shares; the wall figures need an idle machine.

Run:  .venv/bin/python benchmarks/web_search_latency.py [--questions 10] [--embedder hash-64|multilingual-e5-small]
      [--bypass-embedding]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from core.config import RuntimeConfig  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.types import SYSTEM_ACTOR  # noqa: E402
from tests.websearch.conftest import GUARD_OPEN_FOR_TEST_HOST  # noqa: E402
from tests.websearch.fake_engines import fake_engines, html_page  # noqa: E402

SUBJECTS = ["The harbour board", "A local historian", "The town council", "Visiting scientists", "The fishing guild",
            "The museum curator", "Schoolchildren", "The coast guard", "A bakery owner", "The weather office"]
VERBS = ["documented", "debated", "restored", "measured", "celebrated", "photographed", "mapped", "funded"]
OBJECTS = ["the granite breakwater", "seasonal bird migrations", "the oldest chapel", "salt marsh erosion",
           "the annual regatta", "herring prices", "a sunken schooner", "the tram line of 1903", "kelp forests"]


def article(n: int) -> str:
    """About 80 varied sentences; the answer to the question is in one of them."""
    lines = [f"{SUBJECTS[(i * 7 + n) % 10]} {VERBS[(i * 3 + n) % 8]} {OBJECTS[(i * 5 + n) % 9]} in Port{n} "
             f"during {1900 + (i * 13 + n) % 120}." for i in range(80)]
    lines.insert(41, f"In winter the Port{n} ferry runs twice a day, at 08:00 and 16:30.")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=int, default=10)
    ap.add_argument("--embedder", default="hash-64")
    ap.add_argument("--bypass-embedding", action="store_true",
                    help="bypass_web_search_embedding_and_retrieval: inject the pages whole, embed nothing")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, fake_engines() as fake:
        engine = Engine(RuntimeConfig.from_env(Path(tmp)))
        engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": args.embedder},
                                            "parsing": GUARD_OPEN_FOR_TEST_HOST,
                                            "web_search": {**fake.settings("searxng"),
                                                           "bypass_web_search_embedding_and_retrieval": args.bypass_embedding}})
        web, total, chars, stage_rows = [], [], 0, []
        for q in range(args.questions):
            question = f"When does the Port{q} ferry run in winter?"
            urls = [fake.page(f"/pages/{q}-{i}", html_page(f"Port{q} page {i}", article(q))) for i in range(3)]
            chars += 3 * len(article(q))
            fake.results(question, [(u, "page", "") for u in urls])
            answer = engine.ask(SYSTEM_ACTOR, question, temporary=True, web=True)
            if not any(c.location in urls for c in answer.citations):
                print([e.message for e in answer.events if e.kind == "web_search"], answer.text[:200], answer.notices)
            web.append(answer.timings_ms["web_search_ms"])
            stage_rows.append({k: v for k, v in answer.timings_ms.items() if k.startswith("web_") and k != "web_search_ms"})
            total.append(answer.timings_ms["total_ms"])
        engine.close()
    first = web[0]  # includes one-time work of the process (the retrieval calibration's anchor vectors)
    web.sort()
    p95 = web[min(len(web) - 1, round(0.95 * (len(web) - 1)))]
    mode = "pages injected whole" if args.bypass_embedding else "pages chunked, embedded, retrieved"
    print(f"embedder {args.embedder}, {mode}: {args.questions} questions x 3 pages (~{chars // (3 * args.questions)} chars each)")
    print(f"web_search_ms p50 {statistics.median(web):.0f}  p95 {p95:.0f}  (first {first:.0f}, min {web[0]:.0f} .. max {web[-1]:.0f})")
    print(f"answer total_ms p50 {statistics.median(total):.0f}")
    print_stages(stage_rows)


def print_stages(rows: list[dict[str, float]]) -> None:
    names = list(dict.fromkeys(k[4:-3] for row in rows for k in row if not k.endswith("_cpu_ms")))
    cpu = {n: statistics.median(row.get(f"web_{n}_cpu_ms", 0.0) for row in rows) for n in names}
    all_cpu = sum(cpu.values()) or 1.0
    print(f"{'stage':<11}{'wall p50 ms':>12}{'cpu p50 ms':>12}{'cpu share':>10}")
    for n in names:
        wall = statistics.median(row.get(f"web_{n}_ms", 0.0) for row in rows)
        print(f"{n:<11}{wall:>12.0f}{cpu[n]:>12.0f}{cpu[n] / all_cpu:>10.0%}")


if __name__ == "__main__":
    main()
