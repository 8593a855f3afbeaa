"""Retrieval latency through the whole search pipeline, 10k to a million chunks.

Chunk texts are real (the shared retrieval corpora, sentence-split and repeated with a
variation marker to reach the size). Their stored dense vectors are shaped like real embeddings
(embedding a million chunks here would take days), chosen by ``--vectors``:

- ``e5-replicas`` (default): ``--bases`` real embeddings of corpus passages (the configured
  model; cached under ~/.cache/ragdesk-bench), each chunk one of them plus small noise along the
  bases' own top 32 principal directions and a little isotropic noise (cosine to its base ~0.92,
  between two replicas ~0.86, where a real passage's nearest other passage is at ~0.89): the
  neighbourhoods, anisotropy and low intrinsic dimension of real embeddings, which HNSW exploits,
  and queries (real questions, the same model) that land among them.
- ``clusters``: no model: 2,000 Gaussian clusters, each spread in its own 16-dimensional subspace.
- ``uniform``: random unit vectors, the worst case for HNSW (recall@10 0.46 at 100k before).

A chunk's vector is not its text's embedding (they are drawn independently), so BM25 and dense
disagree more than in a real collection; latency does not depend on it. Queries are real
questions embedded with the configured model, so the figure "including the query embedding" is
honest.

Printed per size: upsert throughput (store calls only, and the whole build with BM25 encoding),
the HNSW build time when ``--optimize`` runs (the edge engine has no background optimizer; its
collections quantize dense vectors to int8 in the segments it indexes, rescored with the stored
float16 vectors), recall@10 of the engine's dense search against exact search (numpy over the
same float16 vectors, regenerated per file from their seed: nothing held in memory), p50/p95
per mode with and without the query embedding, and the process's memory per phase
(``benchmarks/memory_phases.py``: peak resident, of it anonymous heap and file-backed pages
of the store's memory-mapped segments; "before the store" is the engine, the embedder, the
corpus texts and the vector bases, i.e. what the benchmark holds beside the store) and the
store's size on disk. ``--graph 32,256`` builds the collection with that HNSW m and
ef_construct instead of the engine's defaults.

``--tokens`` stores token vectors with every chunk (late interaction, core/retrieval/late.py): the
real, pruned e5 token states of ``--token-bases`` chunk-sized corpus passages, each synthetic chunk
one of them; hybrid is then measured with the late stage off and on ("hybrid+late": the query's
token states come from the pass that embeds it; MaxSim over the first 20 candidates in the store),
and the token vectors' share of the disk is printed.

    .venv/bin/python benchmarks/retrieval_scale.py [--sizes 10000,100000] [--embedder multilingual-e5-small]
        [--vectors e5-replicas|clusters|uniform] [--bases 2000] [--graph 16,100] [--tokens]
    .venv/bin/python benchmarks/retrieval_scale.py --sizes 1000000 --optimize   # quiet machine, ~1 h
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.config import RuntimeConfig  # noqa: E402
from core.db.models import FileRecord  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.ingest.pipeline import point_id  # noqa: E402
from core.ingest.service import Upload  # noqa: E402
from core.retrieval import bm25, late  # noqa: E402
from core.types import SYSTEM_ACTOR, ChannelQuery, SearchFilter, VectorPoint  # noqa: E402
from core.vectorstore import edge as edge_store, edge_requests, server as server_store  # noqa: E402
from core.vectorstore.base import READY, READY_KEY  # noqa: E402
from memory_phases import PhasePeaks, resident_mb  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "retrieval"
CHUNKS_PER_FILE = 1000


def sentences() -> list[str]:
    out = []
    for name in ("xquad-en", "xquad-zh", "cranfield-en"):
        for line in (SHARED / name / "corpus.jsonl").open(encoding="utf-8"):
            text = json.loads(line)["text"]
            out.extend(s.strip() for s in re.split(r"(?<=[.!?。！？])\s*", text) if len(s.strip()) > 20)
    return out


def questions() -> list[str]:
    qs = []
    for name in ("xquad-en", "xquad-zh"):
        qs.extend(json.loads(line)["text"] for line in (SHARED / name / "queries.jsonl").open(encoding="utf-8"))
    random.Random(7).shuffle(qs)
    return qs


class VectorShape:
    """Deterministic dense vectors per file (regenerated from their seed for the exact search)."""

    def __init__(self, kind: str, dim: int, bases: np.ndarray | None = None):
        self.kind, self.dim = kind, dim
        rng = np.random.default_rng(11)
        if kind == "e5-replicas":
            assert bases is not None
            self.bases = bases / np.linalg.norm(bases, axis=1, keepdims=True)
            centred = self.bases - self.bases.mean(axis=0)
            _, sv, vt = np.linalg.svd(centred, full_matrices=False)
            self.directions = vt[:32]  # the bases' own principal directions
            self.spread = sv[:32] / np.sqrt(len(bases))  # and their standard deviations
        elif kind == "clusters":
            self.centres = rng.standard_normal((2000, dim)).astype(np.float32)
            self.centres /= np.linalg.norm(self.centres, axis=1, keepdims=True)
            self.subspaces = [np.linalg.qr(rng.standard_normal((dim, 16)))[0].T for _ in range(64)]
        elif kind != "uniform":
            raise SystemExit(f"unknown --vectors {kind!r}")

    def describe(self) -> str:
        if self.kind == "e5-replicas":
            return f"e5-replicas: {len(self.bases)} real embeddings + noise along their top 32 directions"
        if self.kind == "clusters":
            return "clusters: 2,000 Gaussian clusters, 16 intrinsic dimensions each"
        return "uniform random unit vectors (worst case for HNSW)"

    def file_vectors(self, f: int) -> np.ndarray:
        """File ``f``'s dense vectors, the same every call (seeded per file), as stored (float16)."""
        rng = np.random.default_rng((1, f))
        n, dim = CHUNKS_PER_FILE, self.dim
        if self.kind == "e5-replicas":
            base = self.bases[rng.integers(0, len(self.bases), n)]
            along = (rng.standard_normal((n, len(self.spread))) * self.spread * 1.3) @ self.directions
            vecs = base + along + rng.standard_normal((n, dim)) * 0.006
        elif self.kind == "clusters":
            which = rng.integers(0, len(self.centres), n)
            vecs = self.centres[which].copy()
            for i, c in enumerate(which):
                vecs[i] += 0.15 * rng.standard_normal(16) @ self.subspaces[c % len(self.subspaces)]
            vecs += rng.standard_normal((n, dim)) * 0.01
        else:
            vecs = rng.standard_normal((n, dim))
        vecs = vecs.astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs.astype(np.float16).astype(np.float32)


def e5_bases(engine: Engine, embedder_name: str, texts: list[str], count: int) -> np.ndarray:
    """Real embeddings of ``count`` corpus passages, spread over the corpus (cached: minutes of CPU)."""
    cache = Path.home() / ".cache" / "ragdesk-bench" / f"bases-{embedder_name}-{count}.npy"
    if cache.is_file():
        return np.load(cache)
    step = max(1, len(texts) // count)
    chosen = texts[::step][:count]
    print(f"embedding {len(chosen)} passages for the vector bases (cached in {cache}) ...", flush=True)
    vectors = np.asarray(engine.embedder().embed_documents(chosen), dtype=np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors


def token_bases(engine: Engine, count: int) -> list[list[list[float]]]:
    """The stored token vectors (pruned as ingest prunes them) of ``count`` real chunk-sized passages."""
    passages = [json.loads(line)["text"] for name in ("xquad-en-chunks", "xquad-zh-chunks")
                for line in (SHARED / name / "corpus.jsonl").open(encoding="utf-8")]
    chosen = passages[:: max(1, len(passages) // count)][:count]
    _, states = engine.embedder().embed_documents_with_tokens(chosen)
    return [t for t in (late.passage_tokens(s) for s in states) if t]


def build(engine: Engine, size: int, texts: list[str], shape: VectorShape,
          tokens: list[list[list[float]]] | None = None) -> tuple[float, list[str]]:
    """Seconds spent in the store's upsert calls, and the file ids in build order."""
    kb = engine.get_kb(SYSTEM_ACTOR, "scale")
    upsert_s, file_ids = 0.0, []
    for f in range(size // CHUNKS_PER_FILE):
        rec = FileRecord(sha256=f"synthetic-{size}-{f}", name=f"part{f}.md", owner_id="system", kb_id=kb.id,
                         status="indexed", collection=kb.collection, chunk_count=CHUNKS_PER_FILE)
        with engine._db.write() as s:
            s.add(rec)
        file_ids.append(rec.id)
        vecs = shape.file_vectors(f)
        points = []
        for i in range(CHUNKS_PER_FILE):
            text = f"{texts[(f * CHUNKS_PER_FILE + i) % len(texts)]} (v{f})"
            points.append(VectorPoint(id=point_id(rec.id, i), dense=vecs[i].tolist(), sparse=bm25.encode_document(text),
                                      payload={"file_id": rec.id, "kb_id": kb.id, "chunk_index": i, "text": text,
                                               "heading_path": [], "source_name": rec.name, READY_KEY: READY},
                                      tokens=tokens[(f * CHUNKS_PER_FILE + i) % len(tokens)] if tokens else None))
        t0 = time.perf_counter()
        for start in range(0, len(points), 500):
            engine._store.upsert(kb.collection, points[start:start + 500])
        upsert_s += time.perf_counter() - t0
    return upsert_s, file_ids


def exact_top10(queries: np.ndarray, n_files: int, shape: VectorShape) -> np.ndarray:
    """Row numbers (file * CHUNKS_PER_FILE + chunk) of each query's exact ten nearest vectors."""
    best = np.full((len(queries), 10), -np.inf)
    best_ids = np.zeros((len(queries), 10), dtype=np.int64)
    for f in range(n_files):
        scores = queries @ shape.file_vectors(f).T  # (queries, chunks of file f)
        ids = f * CHUNKS_PER_FILE + np.arange(CHUNKS_PER_FILE)
        both = np.concatenate([best, scores], axis=1)
        both_ids = np.concatenate([best_ids, np.broadcast_to(ids, scores.shape)], axis=1)
        keep = np.argsort(-both, axis=1)[:, :10]
        best, best_ids = np.take_along_axis(both, keep, 1), np.take_along_axis(both_ids, keep, 1)
    return best_ids


def dense_recall(engine: Engine, collection: str, queries: np.ndarray, exact: np.ndarray,
                 file_ids: list[str]) -> list[float]:
    """Per-query recall@10 of the engine's dense search (the filter retrieval uses) against exact search."""
    flt = SearchFilter(ready_only=True)
    found = engine._store.search_batch([ChannelQuery(collection, 10, flt, dense=q.tolist()) for q in queries])
    out = []
    for row, got in zip(exact, found):
        want = {point_id(file_ids[i // CHUNKS_PER_FILE], int(i % CHUNKS_PER_FILE)) for i in row}
        out.append(len(want & {p.id for p in got}) / 10)
    return out


def beam_sweep(engine: Engine, collection: str, queries: np.ndarray, exact: np.ndarray, file_ids: list[str],
               beams: list[int]) -> list[tuple[int, float, float]]:
    """Recall@10 per search beam (hnsw_ef) on the tune half (even queries) and the report half (odd).

    Patches the embedded engine's search parameters: a benchmark's knob, not a setting.
    """
    kept = edge_requests.DENSE_PARAMS
    rows = []
    try:
        for ef in beams:
            edge_requests.DENSE_PARAMS = edge_requests.qe.SearchParams(hnsw_ef=ef, quantization=kept.quantization)
            per_query = dense_recall(engine, collection, queries, exact, file_ids)
            rows.append((ef, statistics.mean(per_query[0::2]), statistics.mean(per_query[1::2])))
    finally:
        edge_requests.DENSE_PARAMS = kept
    return rows


def disk_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--embedder", default="multilingual-e5-small")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--vectors", default="e5-replicas", choices=["e5-replicas", "clusters", "uniform"])
    ap.add_argument("--bases", type=int, default=2000, help="real embeddings behind --vectors e5-replicas")
    ap.add_argument("--optimize", action="store_true",
                    help="build the HNSW index (and int8 copies) after loading, as offline maintenance would")
    ap.add_argument("--graph", default=None, metavar="M,EF_CONSTRUCT",
                    help="HNSW m and ef_construct of the collection (default: the engine's)")
    ap.add_argument("--tokens", action="store_true", help="store token vectors and measure the late-interaction stage")
    ap.add_argument("--token-bases", type=int, default=256, help="real passages whose token vectors the chunks reuse")
    ap.add_argument("--beams", default="", metavar="EF,EF,...",
                    help="after the build, recall@10 per search beam on the tune and report halves of the queries")
    args = ap.parse_args()
    beams = [int(b) for b in args.beams.split(",") if b]
    if args.graph:
        m, ef_construct = (int(x) for x in args.graph.split(","))
        for module in (edge_store, server_store):  # read when the collection is created
            module.HNSW_M, module.HNSW_EF_CONSTRUCT = m, ef_construct
    graph = f"m {edge_store.HNSW_M}, ef_construct {edge_store.HNSW_EF_CONSTRUCT}"
    texts, qs = sentences(), questions()[: args.queries]
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            config = RuntimeConfig(data_dir=Path(tmp), database_url=f"sqlite:///{tmp}/b.db")
            with Engine(config) as engine:
                engine.save_settings(SYSTEM_ACTOR, {"embedding": {"model": args.embedder},
                                                    "chunking": {"token_vectors": args.tokens}})
                engine.create_kb(SYSTEM_ACTOR, "scale")
                [seed] = engine.ingest(SYSTEM_ACTOR, "scale", [Upload("seed.md", b"# seed\n\nA seed document.")])
                engine.delete_files(SYSTEM_ACTOR, [seed.file_id])  # it made the collection; only synthetic chunks stay
                collection, dim = engine.get_kb(SYSTEM_ACTOR, "scale").collection, engine.embedder().dimension
                bases = e5_bases(engine, args.embedder, texts, args.bases) if args.vectors == "e5-replicas" else None
                shape = VectorShape(args.vectors, dim, bases)
                tokens = token_bases(engine, args.token_bases) if args.tokens else None
                if args.tokens and not engine._store.token_dimension(collection):
                    raise SystemExit(f"{args.embedder} has no token vectors: --tokens needs one that has (e5)")
                qvecs = np.asarray([engine.embedder().embed_query(q) for q in qs], dtype=np.float32)
                qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
                peaks = PhasePeaks()
                with peaks.phase("before the store"):
                    pass
                t0 = time.perf_counter()
                with peaks.phase("build"):
                    upsert_s, file_ids = build(engine, size, texts, shape, tokens)
                build_s = time.perf_counter() - t0
                optimize_s = None
                if args.optimize and hasattr(engine._store, "optimize"):
                    t1 = time.perf_counter()
                    with peaks.phase("optimize"):
                        engine._store.optimize(collection)
                    optimize_s = time.perf_counter() - t1
                with peaks.phase("exact search (bench)"):
                    exact = exact_top10(qvecs, len(file_ids), shape)
                recall = statistics.mean(dense_recall(engine, collection, qvecs, exact, file_ids))
                sweep = beam_sweep(engine, collection, qvecs, exact, file_ids, beams) if beams else []
                for q in qs[:5]:
                    engine.search(SYSTEM_ACTOR, q, ["scale"])  # warm up
                rows = {}
                searching = peaks.phase("search")
                searching.__enter__()
                stage = []
                for mode in ("dense", "bm25", "hybrid") + (("hybrid+late",) if args.tokens else ()):
                    engine.runtime.query_vectors.clear()  # each mode pays its own query embedding
                    engine.save_settings(SYSTEM_ACTOR, {"retrieval": {"late_interaction": mode == "hybrid+late"}})
                    without, total = [], []
                    for q in qs:
                        r = engine.search(SYSTEM_ACTOR, q, ["scale"], mode=mode.removesuffix("+late"), min_score=0)
                        total.append(r.timings_ms["total"])
                        without.append(r.timings_ms["total"] - r.timings_ms["embed_query"])
                        if mode == "hybrid+late":
                            stage.append(r.timings_ms.get("late", 0.0))
                    rows[mode] = (statistics.median(without), pct(without, 95), statistics.median(total), pct(total, 95))
                searching.__exit__(None, None, None)
                at_rest = resident_mb()
                maxrss_open = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                store_disk = disk_mb(Path(tmp))
                token_disk = sum(disk_mb(p) for p in Path(tmp).rglob("vector_storage-late") if p.is_dir())
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            n = len(file_ids) * CHUNKS_PER_FILE
            index = f"HNSW + int8 built in {optimize_s:.0f} s" if optimize_s is not None else "not optimized (scan)"
            print(f"\n{n} chunks, {len(qs)} queries, embedder {args.embedder}, peak RSS {rss:.0f} MB")
            print(f"dense vectors: {shape.describe()}; graph {graph}")
            print(f"upsert {n / upsert_s:.0f} chunks/s in store calls ({upsert_s:.1f} s); whole build with BM25 "
                  f"encoding {n / build_s:.0f} chunks/s ({build_s:.1f} s); index: {index}")
            print(f"dense recall@10 against exact search: {recall:.4f} (hnsw_ef {edge_requests.HNSW_EF}, all queries)")
            for ef, tune, report in sweep:
                print(f"  hnsw_ef {ef:>5}: recall@10 tune half {tune:.4f}, report half {report:.4f}")
            print(f"{'mode':<11} {'p50 excl. embed':>16} {'p95 excl. embed':>16} {'p50 total':>10} {'p95 total':>10}")
            for mode, (a, b, c, d) in rows.items():
                print(f"{mode:<11} {a:>13.1f} ms {b:>13.1f} ms {c:>7.1f} ms {d:>7.1f} ms", flush=True)
            if stage:
                n_tokens = sum(len(t) for t in tokens) / len(tokens)
                print(f"late stage alone: p50 {statistics.median(stage):.1f} ms, p95 {pct(stage, 95):.1f} ms; token vectors "
                      f"{n_tokens:.0f} a chunk on average, their storage {token_disk:.0f} MB = {token_disk * 1024 / n:.1f} KB a chunk")
            print(peaks.table())
            print(f"ru_maxrss with the engine still open {maxrss_open:.0f} MB, after closing it {rss:.0f} MB")
            print(f"after searching: RSS {at_rest['VmRSS']:.0f} MB (anon {at_rest['RssAnon']:.0f} MB, file "
                  f"{at_rest['RssFile']:.0f} MB); store and database on disk {store_disk:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
