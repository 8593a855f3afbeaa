"""The Qdrant server engine (a server or a cluster, reached with qdrant-client).

Same collections, vector names, payload indexes and fusion as the embedded engine, so a
knowledge base answers the same on both. qdrant-client's in-process modes (``":memory:"``
or a path) stand in for a server in the tests; they are too slow to be the embedded default
(22 minutes to upsert 100k points, measured), which is why ``EdgeStore`` exists.

Hybrid search fuses with ``FusionQuery(fusion=RRF)``, whose constant is Qdrant's default
k = 2; the embedded engine sets the same k explicitly (``RRF_K``).

A query's searches go in one ``query_batch_points`` request per collection (both channels in
it); Qdrant has no request spanning collections, so several knowledge bases send their
requests together (a small thread pool) and the query waits about one round trip. Which
collections exist (and their dimension) is cached: set by create, cleared by drop in this
process; a name not cached is asked again, and a cached one another process dropped answers
404, which clears it.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from qdrant_client import QdrantClient, models

from core.errors import AlreadyExists, CoreError, InvalidInput, InvalidSettings, NotFound, StoreError, StoreUnavailable
from core.types import ChannelQuery, ScoredPoint, SearchFilter, SparseVector, VectorPoint
from core.vectorstore import server_metadata
from core.vectorstore._common import (
    HNSW_EF_CONSTRUCT,
    HNSW_FULL_SCAN_KB,
    HNSW_M,
    by_collection,
    check_late_query,
    check_name,
    check_points,
    check_query,
    check_tokens,
    in_chunk_order,
    is_empty,
    point_id,
    ready_batches,
)
from core.vectorstore.base import DENSE, INDEXED_KEYWORDS, READY, READY_KEY, SPARSE, TOKENS
from core.vectorstore.server_requests import (DENSE_PARAMS, NOT_READY, channel_request, scored, server_filter, token_params,
                                              upsert_batches, why_unreachable)

_SCROLL_PAGE = 512
_PARALLEL_COLLECTIONS = 4  # requests of one query's collections in flight together
class QdrantServerStore:
    """``VectorStore`` on a Qdrant server (``url`` + ``api_key``) or qdrant-client's local mode."""

    def __init__(self, url: str | None = None, api_key: str | None = None, path_or_memory: str | None = None):
        if path_or_memory == ":memory:":
            self._where = "in-memory qdrant-client"
            self._client = QdrantClient(location=":memory:")
        elif path_or_memory:
            self._where = f"qdrant-client local store at {path_or_memory}"
            self._client = QdrantClient(path=path_or_memory)
        elif url:
            self._where = f"Qdrant server {url}"  # the API key never goes into messages or logs
            # no version check at construction: it printed a raw UserWarning when the server was
            # away; ``unreachable()`` says it in words at start-up instead
            self._client = QdrantClient(url=url, api_key=api_key or None, timeout=30, check_compatibility=False)
        else:
            raise InvalidSettings("A Qdrant server URL (QDRANT_URL) is required for the server vector store.")
        self._local = bool(path_or_memory)
        self._dimensions: dict[str, int] = {}  # the existence cache: collections known to exist
        self._token_dimensions: dict[str, int] = {}  # their token vectors' size (0: none)
        self._lock = threading.Lock()  # only guards the caches; the client is thread-safe
        self._pool: ThreadPoolExecutor | None = None  # made on the first query of several collections
        # local mode searches exactly and warns that search parameters do nothing there
        self._dense_params = None if self._local else DENSE_PARAMS

    def __repr__(self) -> str:
        return f"QdrantServerStore({self._where})"

    def unreachable(self) -> str:
        """Why the server cannot be reached now, in words ("" when it answers): the start-up check."""
        if self._local:
            return ""
        try:
            with self._engine("list collections", "*"):
                self._client.get_collections()
        except StoreUnavailable as exc:
            return exc.message
        except CoreError:
            return ""  # it answered (with an error of its own): reachable
        return ""

    @contextmanager
    def _engine(self, action: str, name: str) -> Iterator[None]:
        try:
            yield
        except CoreError:
            raise
        except Exception as exc:  # qdrant-client raises HTTP, gRPC, connection and ValueError alike
            why = why_unreachable(exc)
            if why:  # transient: a 503 with a stable code at the API, a pause and another try for a job
                raise StoreUnavailable(f"The vector store ({self._where}) cannot be reached: {why} "
                                       f"(while trying to {action}).", detail=str(exc)) from exc
            raise StoreError(
                f"The vector store ({self._where}) could not {action} (collection {name}).", detail=str(exc)
            ) from exc

    def _forget(self, name: str) -> None:
        with self._lock:
            self._dimensions.pop(name, None)
            self._token_dimensions.pop(name, None)

    def _dimension(self, name: str) -> int:
        """The dimension of an existing collection (NotFound otherwise); cached, so it is the
        existence check too: asked of the server once per collection and process."""
        check_name(name)
        with self._lock:
            if name in self._dimensions:
                return self._dimensions[name]
        with self._engine("read the collection", name):
            if not self._client.collection_exists(name):
                raise NotFound(f"Collection {name} does not exist.")
            vectors = self._client.get_collection(name).config.params.vectors
            size = vectors[DENSE].size
            tokens = vectors[TOKENS].size if TOKENS in vectors else 0
        with self._lock:
            self._dimensions[name], self._token_dimensions[name] = int(size), int(tokens)
        return int(size)

    # ------------------------------------------------------------ collections

    def create_collection(self, name: str, dimension: int, token_dimension: int = 0) -> None:
        check_name(name)
        if dimension < 1 or token_dimension < 0:
            raise InvalidInput(f"Invalid dimension {dimension} (tokens {token_dimension}) for collection {name}.")
        with self._engine("create", name):
            if self._client.collection_exists(name):
                raise AlreadyExists(f"Collection {name} already exists.")
            self._client.create_collection(
                name,
                vectors_config={
                    DENSE: models.VectorParams(
                        size=dimension, distance=models.Distance.COSINE, datatype=models.Datatype.FLOAT16,
                        quantization_config=models.ScalarQuantization(scalar=models.ScalarQuantizationConfig(
                            type=models.ScalarType.INT8, quantile=0.99, always_ram=True)),
                    )
                } | ({TOKENS: token_params(token_dimension)} if token_dimension else {}),
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                hnsw_config=models.HnswConfigDiff(m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT,
                                                  full_scan_threshold=HNSW_FULL_SCAN_KB),
            )
            with warnings.catch_warnings():
                if self._local:  # local mode says indexes have no effect there; a server uses them
                    warnings.filterwarnings("ignore", message="Payload indexes have no effect")
                for key in INDEXED_KEYWORDS:
                    self._client.create_payload_index(name, key, models.PayloadSchemaType.KEYWORD, wait=True)
                self._client.create_payload_index(name, READY_KEY, models.PayloadSchemaType.INTEGER, wait=True)
        with self._lock:
            self._dimensions[name], self._token_dimensions[name] = dimension, token_dimension

    def drop_collection(self, name: str) -> None:
        check_name(name)
        self._forget(name)
        with self._engine("drop", name):
            if self._client.collection_exists(name):
                self._client.delete_collection(name)

    def collection_exists(self, name: str) -> bool:
        try:
            self._dimension(name)  # cached: no request for a collection known to exist
        except NotFound:
            return False
        return True

    def list_collections(self) -> list[str]:
        with self._engine("list collections", "*"):
            return sorted(c.name for c in self._client.get_collections().collections)

    def dimension(self, name: str) -> int:
        return self._dimension(name)

    def token_dimension(self, name: str) -> int:
        self._dimension(name)
        with self._lock:
            return self._token_dimensions.get(name, 0)

    # ------------------------------------------------------------ points

    def upsert(self, name: str, points: list[VectorPoint]) -> None:
        if not points:
            return
        check_points(points, self._dimension(name))
        check_tokens(points, self.token_dimension(name))
        structs = [
            models.PointStruct(
                id=point_id(p.id),
                vector={DENSE: p.dense, SPARSE: models.SparseVector(indices=p.sparse.indices, values=p.sparse.values)}
                | ({TOKENS: p.tokens} if p.tokens else {}),
                payload=p.payload,
            )
            for p in points
        ]
        with self._engine("store points", name):
            for batch in upsert_batches(structs, [len(p.tokens or ()) for p in points]):
                self._client.upsert(name, batch, wait=True)

    def delete_file(self, name: str, file_id: str) -> None:
        self._dimension(name)
        selector = models.FilterSelector(filter=server_filter(file_id=file_id))
        with self._engine("delete a file's points", name):
            self._client.delete(name, points_selector=selector, wait=True)

    def delete_points(self, name: str, ids: list[str]) -> None:
        if not ids:
            return
        self._dimension(name)
        selector = models.PointIdsList(points=[point_id(i) for i in ids])
        with self._engine("delete points", name):
            self._client.delete(name, points_selector=selector, wait=True)

    def count(self, name: str, file_id: str | None = None) -> int:
        self._dimension(name)
        flt = server_filter(file_id=file_id) if file_id is not None else None
        with self._engine("count points", name):
            return int(self._client.count(name, count_filter=flt, exact=True).count)

    def file_ids(self, name: str) -> dict[str, int]:
        total = self.count(name)
        if total == 0:
            return {}
        with self._engine("list files", name):
            facet = self._client.facet(name, key="file_id", limit=total, exact=True)
        return {str(hit.value): int(hit.count) for hit in facet.hits}

    def mark_ready(self, name: str, file_ids: list[str]) -> None:
        self._dimension(name)
        with self._engine("mark files searchable", name):
            for ids in ready_batches(file_ids):
                where = models.Filter(must=[models.FieldCondition(key="file_id", match=models.MatchAny(any=ids))])
                self._client.set_payload(name, payload={READY_KEY: READY}, points=models.FilterSelector(filter=where),
                                         wait=True)

    def unready_file_ids(self, name: str) -> dict[str, int]:
        self._dimension(name)
        with self._engine("list unfinished files", name):
            total = int(self._client.count(name, count_filter=NOT_READY, exact=True).count)
            if total == 0:
                return {}
            facet = self._client.facet(name, key="file_id", facet_filter=NOT_READY, limit=total, exact=True)
        return {str(hit.value): int(hit.count) for hit in facet.hits if hit.count > 0}

    def ensure_ready_index(self, name: str) -> None:
        self._dimension(name)
        with self._engine("index the ready flag", name), warnings.catch_warnings():
            if self._local:
                warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            # idempotent on a server: an index that exists with this schema is left as it is
            self._client.create_payload_index(name, READY_KEY, models.PayloadSchemaType.INTEGER, wait=True)

    def set_file_metadata(self, name: str, values_by_file: dict[str, dict], indexes: dict[str, str]) -> None:
        self._dimension(name)
        with self._engine("update file metadata", name), warnings.catch_warnings():
            if self._local:
                warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            server_metadata.index_missing(self._client, name, indexes)
            server_metadata.set_file_meta(self._client, name, values_by_file)

    def scroll_file(self, name: str, file_id: str) -> list[ScoredPoint]:
        self._dimension(name)
        flt = server_filter(file_id=file_id)
        found: list[ScoredPoint] = []
        offset = None
        with self._engine("read a file's points", name):
            while True:
                records, offset = self._client.scroll(
                    name, scroll_filter=flt, limit=_SCROLL_PAGE, offset=offset, with_payload=True
                )
                found.extend(ScoredPoint(id=str(r.id), score=0.0, payload=dict(r.payload or {})) for r in records)
                if offset is None:
                    break
        return in_chunk_order(found)

    # ------------------------------------------------------------ search

    def search_batch(self, queries: list[ChannelQuery]) -> list[list[ScoredPoint]]:
        out: list[list[ScoredPoint]] = [[] for _ in queries]
        jobs = []
        for name, positions in by_collection(queries).items():
            asked = [i for i in positions if not (queries[i].sparse and is_empty(queries[i].sparse))]
            try:
                dimension = self._dimension(name)
            except NotFound:
                continue  # never made, or dropped: nothing to find there
            for i in asked:
                check_query(queries[i].dense, dimension)
            if asked:
                jobs.append((name, asked))
        if len(jobs) > 1 and not self._local:  # local mode is one in-process engine: no overlap to gain
            results = list(self._parallel().map(lambda job: self._batch(job[0], [queries[i] for i in job[1]]), jobs))
        else:
            results = [self._batch(name, [queries[i] for i in asked]) for name, asked in jobs]
        for (_, asked), found in zip(jobs, results):
            for i, hits in zip(asked, found):
                out[i] = hits
        return out

    def _parallel(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=_PARALLEL_COLLECTIONS, thread_name_prefix="ragdesk-qdrant")
            return self._pool

    def _batch(self, name: str, queries: list[ChannelQuery]) -> list[list[ScoredPoint]]:
        """One request for every channel query of one collection."""
        try:
            responses = self._client.query_batch_points(name, requests=[channel_request(q, self._dense_params) for q in queries])
        except Exception as exc:
            self._forget(name)  # dropped by another process since it was cached?
            with self._engine("search", name):
                if not self._client.collection_exists(name):
                    return [[] for _ in queries]
            raise StoreError(f"The vector store ({self._where}) could not search (collection {name}).",
                             detail=str(exc)) from exc
        return [scored(r.points) for r in responses]

    def late_scores(self, name: str, ids: list[str], tokens: list[list[float]]) -> dict[str, float]:
        if not ids:
            return {}
        size = self.token_dimension(name)
        if not size:
            return {}
        check_late_query(tokens, size)
        wanted = sorted({point_id(i) for i in ids})
        with self._engine("score token vectors", name):
            response = self._client.query_points(
                name, query=tokens, using=TOKENS, query_filter=models.Filter(must=[models.HasIdCondition(has_id=wanted)]),
                limit=len(wanted), with_payload=False)
        return {str(h.id): float(h.score) for h in response.points}

    def search_dense(self, name: str, vector: list[float], limit: int, flt: SearchFilter) -> list[ScoredPoint]:
        check_query(vector, self._dimension(name))
        with self._engine("search", name):
            response = self._client.query_points(
                name, query=vector, using=DENSE, query_filter=server_filter(flt), limit=limit, with_payload=True,
                search_params=self._dense_params,
            )
        return scored(response.points)

    def search_sparse(self, name: str, vector: SparseVector, limit: int, flt: SearchFilter) -> list[ScoredPoint]:
        self._dimension(name)
        if is_empty(vector):
            return []
        query = models.SparseVector(indices=vector.indices, values=vector.values)
        with self._engine("search", name):
            response = self._client.query_points(
                name, query=query, using=SPARSE, query_filter=server_filter(flt), limit=limit, with_payload=True
            )
        return scored(response.points)

    def search_hybrid(
        self,
        name: str,
        dense: list[float],
        sparse: SparseVector,
        limit: int,
        flt: SearchFilter,
        prefetch_limit: int,
    ) -> list[ScoredPoint]:
        check_query(dense, self._dimension(name))
        where = server_filter(flt)
        prefetch = [models.Prefetch(query=dense, using=DENSE, limit=prefetch_limit, filter=where)]
        if not is_empty(sparse):
            sparse_q = models.SparseVector(indices=sparse.indices, values=sparse.values)
            prefetch.append(models.Prefetch(query=sparse_q, using=SPARSE, limit=prefetch_limit, filter=where))
        with self._engine("search", name):
            response = self._client.query_points(
                name,
                prefetch=prefetch,
                query=models.FusionQuery(fusion=models.Fusion.RRF),  # k = 2 = RRF_K
                query_filter=where,
                limit=limit,
                with_payload=True,
            )
        return scored(response.points)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        self._client.close()
