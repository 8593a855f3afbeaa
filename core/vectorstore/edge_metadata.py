"""Metadata filters and payload on the embedded engine (qdrant-edge): conditions, indexes, updates."""

from __future__ import annotations

import qdrant_edge as qe

from core.metadata.conditions import INDEX_OF, PAYLOAD_ROOT, MetaCondition

_SCHEMA = {"keyword": qe.PayloadSchemaType.Keyword, "float": qe.PayloadSchemaType.Float,
           "datetime": qe.PayloadSchemaType.Datetime, "integer": qe.PayloadSchemaType.Integer}


def conditions(metadata: tuple[MetaCondition, ...]) -> list:
    out = []
    for c in metadata:
        if c.kind in ("text", "tags"):
            out.append(qe.FieldCondition(c.path, match=qe.MatchAny([str(v) for v in c.any_of])))
        elif c.kind == "number":
            out.append(qe.FieldCondition(c.path, range=qe.RangeFloat(gte=c.gte, gt=c.gt, lte=c.lte, lt=c.lt)))
        else:
            out.append(qe.FieldCondition(c.path, range=qe.RangeDateTime(gte=c.gte, gt=c.gt, lte=c.lte, lt=c.lt)))
    return out


def index_missing(shard: qe.EdgeShard, indexes: dict[str, str]) -> bool:
    """Create the payload indexes (path -> kind) the shard lacks; whether any was made."""
    have = shard.info().payload_schema
    made = False
    for path, kind in indexes.items():
        if path not in have:
            shard.update(qe.UpdateOperation.create_field_index(path, _SCHEMA[INDEX_OF.get(kind, kind)]))
            made = True
    return made


def set_file_meta(shard: qe.EdgeShard, values_by_file: dict[str, dict]) -> None:
    """Replace the ``meta`` object of every point of each file (its other payload is kept)."""
    for file_id, values in values_by_file.items():
        where = qe.Filter(must=[qe.FieldCondition("file_id", match=qe.MatchValue(file_id))])
        shard.update(qe.UpdateOperation.set_payload_by_filter(where, {PAYLOAD_ROOT: dict(values)}))
