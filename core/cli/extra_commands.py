"""Subcommands beyond the knowledge-base basics: secrets and eval."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from core.cli.context import emit


def cmd_eval(args: argparse.Namespace) -> int:
    from core.evaluation import evaluate

    modes = [m.strip() for m in args.mode.split(",") if m.strip()]
    chunking = {}
    if args.chunk_size:
        chunking["chunk_size"] = args.chunk_size
    if args.chunk_overlap is not None:
        chunking["chunk_overlap"] = args.chunk_overlap
    if args.min_size is not None:
        chunking["chunk_min_size_target"] = args.min_size
    report = evaluate(Path(args.dataset), embedder=args.embedder, modes=modes, chunking=chunking or None,
                      max_queries=args.max_queries,
                      progress=None if args.json else (lambda m: print(m, file=sys.stderr)))
    data = asdict(report)

    def human(d: dict) -> str:
        head = (f"{d['dataset']}: {d['documents']} documents → {d['chunks']} chunks with {d['embedder']} "
                f"(ingest {d['ingest_seconds']:.1f} s{', ' + str(d['skipped']) + ' skipped' if d['skipped'] else ''})\n"
                f"{'mode':<14} {'nDCG@10':>8} {'R@5':>6} {'R@10':>6} {'MRR@10':>7} {'ans.hit':>8} {'p50 ms':>7} {'p95 ms':>7}")
        rows = [f"{s['mode']:<14} {s['ndcg10']:>8.3f} {s['recall5']:>6.3f} {s['recall10']:>6.3f} {s['mrr10']:>7.3f} "
                f"{'' if s['answer_hit'] is None else format(s['answer_hit'], '.3f'):>8} {s['latency_p50_ms']:>7.1f} {s['latency_p95_ms']:>7.1f}"
                for s in d["scores"]]
        return "\n".join([head, *rows])

    emit(args, data, human)
    return 0


def cmd_secrets(args: argparse.Namespace) -> int:
    from core.config import RuntimeConfig
    from core.secrets.rotation import rotate

    report = rotate(RuntimeConfig.from_env(args.data_dir))
    emit(args, asdict(report), lambda r: (
        f"re-encrypted {r['settings_versions']} settings version(s) and {r['other_values']} other value(s) "
        f"under a new key ({r['key_source']})" + (f"; {r['next_step']}" if r["next_step"] else "")))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    se = sub.add_parser("secrets", help="manage the key that encrypts stored secrets")
    se.set_defaults(handler=cmd_secrets)
    ses = se.add_subparsers(dest="secrets_command", required=True)
    ses.add_parser("rotate", help="re-encrypt every stored secret under a new key (and rotate the key file)")

    ev = sub.add_parser("eval", help="score retrieval on a BEIR-layout folder (corpus/queries/qrels)")
    ev.add_argument("dataset", help="folder with corpus.jsonl, queries.jsonl, qrels.tsv (answers.jsonl optional)")
    ev.add_argument("--embedder", default="multilingual-e5-small",
                    help="local model: multilingual-e5-small, all-minilm-l6-v2 (or hash-64 for a smoke test)")
    ev.add_argument("--mode", default="hybrid", help="dense|bm25|hybrid|hybrid+rerank, or several separated by commas")
    ev.add_argument("--chunk-size", type=int)
    ev.add_argument("--chunk-overlap", type=int)
    ev.add_argument("--min-size", type=int, help="chunk_min_size_target")
    ev.add_argument("--max-queries", type=int, help="score only the first N queries (quick look)")
    ev.set_defaults(handler=cmd_eval)
