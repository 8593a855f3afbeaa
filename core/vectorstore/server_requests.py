"""How the server store's filters, searches and upserts are written in qdrant-client's types, and
how an unreachable server is told from a refused request (``server.py``)."""

from __future__ import annotations

from qdrant_client import models

from core.types import ChannelQuery, ScoredPoint, SearchFilter
from core.vectorstore import _common, server_metadata
from core.vectorstore._common import HNSW_EF
from core.vectorstore.base import DENSE, READY, READY_KEY, SPARSE

UPSERT_BATCH = 256
# Token vectors travel as JSON numbers (~4 KB a token): a request carries at most this many token
# rows (~8 MB), well under a server's default 32 MB request limit.
UPSERT_TOKEN_ROWS = 2048

# int8 copies searched, the best 2 x limit rescored with the stored vectors (exact scores back);
# the same search beam as the embedded engine (HNSW_EF, _common.py)
DENSE_PARAMS = models.SearchParams(hnsw_ef=HNSW_EF,
                                    quantization=models.QuantizationSearchParams(rescore=True, oversampling=2.0))
NOT_READY = models.Filter(must_not=[models.FieldCondition(key=READY_KEY, match=models.MatchValue(value=READY))])


def server_filter(flt: SearchFilter | None = None, file_id: str | None = None) -> models.Filter | None:
    must: list[models.Condition] = []
    if flt is not None and flt.kb_ids:
        must.append(models.FieldCondition(key="kb_id", match=models.MatchAny(any=list(flt.kb_ids))))
    if flt is not None and flt.file_ids:
        must.append(models.FieldCondition(key="file_id", match=models.MatchAny(any=list(flt.file_ids))))
    if file_id is not None:
        must.append(models.FieldCondition(key="file_id", match=models.MatchValue(value=file_id)))
    if flt is not None and flt.ready_only:
        must.append(models.FieldCondition(key=READY_KEY, match=models.MatchValue(value=READY)))
    if flt is not None and flt.point_ids:
        must.append(models.HasIdCondition(has_id=list(flt.point_ids)))
    if flt is not None and flt.metadata:
        must.extend(server_metadata.conditions(flt.metadata))
    must_not: list[models.Condition] = []
    if flt is not None and flt.exclude_file_ids:
        must_not.append(models.FieldCondition(key="file_id", match=models.MatchAny(any=list(flt.exclude_file_ids))))
    if not must and not must_not:
        return None
    return models.Filter(must=must or None, must_not=must_not or None)


def channel_request(q: ChannelQuery, params: models.SearchParams | None) -> models.QueryRequest:
    if q.dense is not None:
        return models.QueryRequest(query=q.dense, using=DENSE, filter=server_filter(q.flt), limit=q.limit,
                                   with_payload=True, params=params)
    assert q.sparse is not None
    sparse = models.SparseVector(indices=q.sparse.indices, values=q.sparse.values)
    return models.QueryRequest(query=sparse, using=SPARSE, filter=server_filter(q.flt), limit=q.limit,
                               with_payload=True)


def why_unreachable(exc: BaseException) -> str:
    """The server was not reached, or answered that it cannot serve now: why, in words ("" when
    it answered something else — a refusal of the request itself is no outage)."""
    import httpx
    from qdrant_client.http.exceptions import UnexpectedResponse

    if isinstance(exc, UnexpectedResponse) and exc.status_code in (502, 503, 504):
        return f"it answered HTTP {exc.status_code}"
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (ConnectionRefusedError, httpx.ConnectError)) and "refused" in str(seen).lower():
            return "connection refused"
        if isinstance(seen, (httpx.TimeoutException, TimeoutError)):
            return "no answer in time"
        if isinstance(seen, (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, ConnectionError)):
            return f"the connection failed ({str(seen)[:120] or type(seen).__name__})"
        seen = seen.__cause__ or seen.__context__
    return ""


def token_params(size: int) -> models.VectorParams:
    """The token multivector: MaxSim, no HNSW graph (m 0: only compared by id), on disk."""
    datatype = models.Datatype.TURBO8 if _common.TOKEN_STORAGE == "turbo8" else models.Datatype.FLOAT16
    return models.VectorParams(size=size, distance=models.Distance.COSINE, datatype=datatype, on_disk=True,
                               multivector_config=models.MultiVectorConfig(comparator=models.MultiVectorComparator.MAX_SIM),
                               hnsw_config=models.HnswConfigDiff(m=0))


def upsert_batches(structs: list[models.PointStruct], token_rows: list[int]) -> list[list[models.PointStruct]]:
    """Up to ``UPSERT_BATCH`` points a request, fewer when their token vectors would make it large."""
    batches: list[list[models.PointStruct]] = [[]]
    rows = 0
    for struct, n in zip(structs, token_rows):
        if batches[-1] and (len(batches[-1]) >= UPSERT_BATCH or rows + n > UPSERT_TOKEN_ROWS):
            batches.append([])
            rows = 0
        batches[-1].append(struct)
        rows += n
    return batches


def scored(hits: list) -> list[ScoredPoint]:
    return [ScoredPoint(id=str(h.id), score=float(h.score), payload=dict(h.payload or {})) for h in hits]
