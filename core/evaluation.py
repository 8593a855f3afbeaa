"""Retrieval evaluation on a BEIR-layout folder — a product feature, not only a benchmark.

The corpus goes through our own parsing, chunking and embedding into a temporary knowledge
base; queries go through the same search the chat uses. Chunks are scored at document level
(a document's score is its best chunk's), as the shared sets judge documents:
nDCG@10 (graded), Recall@5/10, MRR@10, and, where answers.jsonl exists, the answer hit rate:
whether a gold answer string appears in the text that would be injected into the prompt.
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterator

from core.errors import InvalidInput
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR


@dataclass
class Dataset:
    corpus: dict[str, tuple[str, str]]  # id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    answers: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class ModeScores:
    mode: str
    ndcg10: float
    recall5: float
    recall10: float
    mrr10: float
    answer_hit: float | None
    latency_p50_ms: float
    latency_p95_ms: float
    queries: int


@dataclass
class EvalReport:
    dataset: str
    embedder: str
    documents: int
    chunks: int
    ingest_seconds: float
    scores: list[ModeScores]
    chunking: dict
    skipped: int = 0  # corpus documents that could not be ingested (empty, unparsable)


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_dataset(folder: Path) -> Dataset:
    folder = Path(folder)
    for name in ("corpus.jsonl", "queries.jsonl", "qrels.tsv"):
        if not (folder / name).exists():
            raise InvalidInput(f"{folder} is not a BEIR-layout folder: {name} is missing")
    corpus = {str(d["_id"]): (d.get("title") or "", d.get("text") or "") for d in _jsonl(folder / "corpus.jsonl")}
    queries = {str(q["_id"]): q["text"] for q in _jsonl(folder / "queries.jsonl")}
    qrels: dict[str, dict[str, int]] = {}
    with (folder / "qrels.tsv").open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 3 or (i == 0 and not cols[2].lstrip("-").isdigit()):
                continue  # header row
            if int(cols[2]) > 0:
                qrels.setdefault(cols[0], {})[cols[1]] = int(cols[2])
    answers = {}
    if (folder / "answers.jsonl").exists():
        answers = {str(a["_id"]): list(a.get("answers") or []) for a in _jsonl(folder / "answers.jsonl")}
    queries = {q: t for q, t in queries.items() if q in qrels}
    return Dataset(corpus, queries, qrels, answers)


def ndcg_at(ranked: list[str], rel: dict[str, int], k: int = 10) -> float:
    dcg = sum((2 ** rel.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(rel.values(), reverse=True)[:k]
    idcg = sum((2 ** r - 1) / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], rel: dict[str, int], k: int) -> float:
    return len(set(ranked[:k]) & set(rel)) / len(rel) if rel else 0.0


def mrr_at(ranked: list[str], rel: dict[str, int], k: int = 10) -> float:
    return next((1.0 / (i + 1) for i, d in enumerate(ranked[:k]) if d in rel), 0.0)


def _percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def _normalise(text: str) -> str:
    return "".join(text.lower().split())


@dataclass
class EvalKB:
    """A BEIR corpus ingested into a temporary knowledge base, ready to be searched many times
    (a benchmark tries several retrieval settings on one ingest)."""

    engine: object
    data: Dataset
    doc_of_file: dict[str, str]
    chunks: int
    ingest_seconds: float
    skipped: int


@contextmanager
def ingested(folder: Path, *, embedder: str = "multilingual-e5-small", chunking: dict | None = None,
             retrieval: dict | None = None, progress: Callable[[str], None] | None = None) -> Iterator[EvalKB]:
    from core.config import RuntimeConfig
    from core.engine import Engine

    data = load_dataset(folder)
    say = progress or (lambda _m: None)
    with tempfile.TemporaryDirectory(prefix="ragdesk-eval-") as tmp:
        config = RuntimeConfig(data_dir=Path(tmp), database_url=f"sqlite:///{Path(tmp) / 'eval.db'}")
        with Engine(config) as engine:
            patch = {"embedding": {"provider": "local", "model": embedder}}
            if chunking:
                patch["chunking"] = chunking
            if retrieval:
                patch["retrieval"] = retrieval
            engine.save_settings(SYSTEM_ACTOR, patch)
            engine.create_kb(SYSTEM_ACTOR, "eval")
            uploads = [Upload(f"{doc_id}.md", (f"# {title}\n\n{text}" if title else text).encode("utf-8"))
                       for doc_id, (title, text) in data.corpus.items()]
            say(f"ingesting {len(uploads)} documents with {embedder}")
            t0 = time.perf_counter()
            results = engine.ingest(SYSTEM_ACTOR, "eval", uploads)
            ingest_seconds = time.perf_counter() - t0
            failed = [r for r in results if not r.ok]
            if len(failed) == len(results):
                raise InvalidInput(f"no corpus document could be ingested, e.g. {failed[0].name}: {failed[0].error}")
            for r in failed[:3]:
                say(f"skipped {r.name}: {r.error}")  # e.g. an empty abstract: it can't be retrieved anyway
            yield EvalKB(engine=engine, data=data, doc_of_file={r.file_id: r.name[:-3] for r in results if r.ok},
                         chunks=sum(r.chunks for r in results if r.ok), ingest_seconds=ingest_seconds,
                         skipped=len(failed))


def evaluate(folder: Path, *, embedder: str = "multilingual-e5-small", modes: list[str] | None = None,
             chunking: dict | None = None, retrieval: dict | None = None, max_queries: int | None = None,
             progress: Callable[[str], None] | None = None) -> EvalReport:
    modes = modes or ["hybrid"]
    say = progress or (lambda _m: None)
    with ingested(folder, embedder=embedder, chunking=chunking, retrieval=retrieval, progress=progress) as kb:
        query_ids = list(kb.data.queries)[: max_queries or None]
        scores = [score_mode(kb, mode, query_ids, say) for mode in modes]
        settings = kb.engine.settings()
        return EvalReport(dataset=Path(folder).name, embedder=kb.engine.embedder().id, documents=len(kb.data.corpus),
                          chunks=kb.chunks, ingest_seconds=kb.ingest_seconds, scores=scores,
                          chunking=settings.chunking.model_dump(), skipped=kb.skipped)


def score_mode(kb: EvalKB, mode: str, query_ids: list[str] | None = None,
               say: Callable[[str], None] | None = None, ranked_out: dict[str, list[str]] | None = None) -> ModeScores:
    """Search each query (all of the set's by default) with the engine's current settings;
    ``ranked_out`` receives each query's ranked document ids (for error analysis)."""
    engine, data, doc_of_file = kb.engine, kb.data, kb.doc_of_file
    settings = engine.settings()
    ndcg, r5, r10, mrr, hits, latencies = [], [], [], [], [], []
    items = [(q, data.queries[q]) for q in (data.queries if query_ids is None else query_ids)]
    (say or (lambda _m: None))(f"{mode}: {len(items)} queries")
    inject_k, inject_chars = settings.retrieval.rag_max_results, settings.retrieval.rag_max_content_chars
    for qid, question in items:
        t0 = time.perf_counter()
        result = engine.search(SYSTEM_ACTOR, question, ["eval"], mode=mode, top_k=50, min_score=0.0)
        latencies.append((time.perf_counter() - t0) * 1000)
        ranked: list[str] = []
        for hit in result.hits:
            doc = doc_of_file.get(hit.file_id)
            if doc and doc not in ranked:
                ranked.append(doc)
        if ranked_out is not None:
            ranked_out[qid] = ranked
        rel = data.qrels[qid]
        ndcg.append(ndcg_at(ranked, rel))
        r5.append(recall_at(ranked, rel, 5))
        r10.append(recall_at(ranked, rel, 10))
        mrr.append(mrr_at(ranked, rel))
        if data.answers.get(qid):
            injected = _normalise(" ".join(h.text[:inject_chars] for h in result.hits[:inject_k]))
            hits.append(any(_normalise(a) in injected for a in data.answers[qid]))
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    return ModeScores(mode=mode, ndcg10=mean(ndcg), recall5=mean(r5), recall10=mean(r10), mrr10=mean(mrr),
                      answer_hit=mean(hits) if hits else None, latency_p50_ms=_percentile(latencies, 50),
                      latency_p95_ms=_percentile(latencies, 95), queries=len(items))
