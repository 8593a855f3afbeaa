"""How the embedded store's filters and searches are written in qdrant-edge's types (``edge.py``)."""

from __future__ import annotations

import qdrant_edge as qe

from core.types import ChannelQuery, ScoredPoint, SearchFilter
from core.vectorstore import _common, edge_metadata
from core.vectorstore._common import HNSW_EF, HNSW_EF_CONSTRUCT, HNSW_FULL_SCAN_KB
from core.vectorstore.base import DENSE, READY, READY_KEY, SPARSE


def edge_filter(flt: SearchFilter | None = None, file_id: str | None = None) -> qe.Filter | None:
    must: list = []
    if flt is not None and flt.kb_ids:
        must.append(qe.FieldCondition("kb_id", match=qe.MatchAny(list(flt.kb_ids))))
    if flt is not None and flt.file_ids:
        must.append(qe.FieldCondition("file_id", match=qe.MatchAny(list(flt.file_ids))))
    if file_id is not None:
        must.append(qe.FieldCondition("file_id", match=qe.MatchValue(file_id)))
    if flt is not None and flt.ready_only:
        must.append(qe.FieldCondition(READY_KEY, match=qe.MatchValue(READY)))
    if flt is not None and flt.point_ids:
        must.append(qe.HasIdCondition(set(flt.point_ids)))
    if flt is not None and flt.metadata:
        must.extend(edge_metadata.conditions(flt.metadata))
    must_not: list = []
    if flt is not None and flt.exclude_file_ids:
        must_not.append(qe.FieldCondition("file_id", match=qe.MatchAny(list(flt.exclude_file_ids))))
    if not must and not must_not:
        return None
    return qe.Filter(must=must or None, must_not=must_not or None)


# Dense search on optimized (HNSW) segments scores int8 copies, then rescores the best
# ``oversampling`` x limit with the stored vectors: returned scores are exact float16 cosines, so
# calibration and thresholds do not move. Segments not optimized yet scan the stored vectors.
# HNSW_EF: the search beam (_common.py says why 1024).
DENSE_PARAMS = qe.SearchParams(hnsw_ef=HNSW_EF,
                                quantization=qe.QuantizationSearchParams(rescore=True, oversampling=2.0))
NOT_READY = qe.Filter(must_not=[qe.FieldCondition(READY_KEY, match=qe.MatchValue(READY))])


def channel_request(q: ChannelQuery) -> qe.QueryRequest:
    if q.dense is not None:
        return qe.QueryRequest(limit=q.limit, query=qe.Query.Nearest(q.dense, using=DENSE), filter=edge_filter(q.flt),
                               with_payload=True, params=DENSE_PARAMS)
    assert q.sparse is not None
    sparse = qe.Query.Nearest(qe.SparseVector(q.sparse.indices, q.sparse.values), using=SPARSE)
    return qe.QueryRequest(limit=q.limit, query=sparse, filter=edge_filter(q.flt), with_payload=True)


def scored(hits: list) -> list[ScoredPoint]:
    return [ScoredPoint(id=str(h.id), score=float(h.score), payload=dict(h.payload or {})) for h in hits]


def token_params(size: int) -> qe.EdgeVectorParams:
    """The token multivector: MaxSim, no HNSW graph (m 0: it is only ever compared by id), on disk."""
    datatype = qe.VectorStorageDatatype.Turbo8 if _common.TOKEN_STORAGE == "turbo8" else qe.VectorStorageDatatype.Float16
    return qe.EdgeVectorParams(
        size=size, distance=qe.Distance.Cosine, datatype=datatype, memory=qe.Memory.Cold,
        multivector_config=qe.MultiVectorConfig(qe.MultiVectorComparator.MaxSim),
        hnsw_config=qe.HnswIndexConfig(m=0, ef_construct=HNSW_EF_CONSTRUCT, full_scan_threshold=HNSW_FULL_SCAN_KB))
