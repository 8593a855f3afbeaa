"""Metadata filters and payload on a Qdrant server (qdrant-client): conditions, indexes, updates."""

from __future__ import annotations

from qdrant_client import QdrantClient, models

from core.metadata.conditions import INDEX_OF, PAYLOAD_ROOT, MetaCondition

_SCHEMA = {"keyword": models.PayloadSchemaType.KEYWORD, "float": models.PayloadSchemaType.FLOAT,
           "datetime": models.PayloadSchemaType.DATETIME, "integer": models.PayloadSchemaType.INTEGER}


def conditions(metadata: tuple[MetaCondition, ...]) -> list[models.Condition]:
    out: list[models.Condition] = []
    for c in metadata:
        if c.kind in ("text", "tags"):
            out.append(models.FieldCondition(key=c.path, match=models.MatchAny(any=[str(v) for v in c.any_of])))
        elif c.kind == "number":
            out.append(models.FieldCondition(key=c.path, range=models.Range(gte=c.gte, gt=c.gt, lte=c.lte, lt=c.lt)))
        else:
            out.append(models.FieldCondition(key=c.path, range=models.DatetimeRange(gte=c.gte, gt=c.gt, lte=c.lte,
                                                                                    lt=c.lt)))
    return out


def index_missing(client: QdrantClient, name: str, indexes: dict[str, str]) -> bool:
    """Create the payload indexes (path -> kind) the collection lacks; whether any was made."""
    have = client.get_collection(name).payload_schema or {}
    made = False
    for path, kind in indexes.items():
        if path not in have:
            client.create_payload_index(name, field_name=path, field_schema=_SCHEMA[INDEX_OF.get(kind, kind)], wait=True)
            made = True
    return made


def set_file_meta(client: QdrantClient, name: str, values_by_file: dict[str, dict]) -> None:
    """Replace the ``meta`` object of every point of each file (its other payload is kept)."""
    for file_id, values in values_by_file.items():
        where = models.Filter(must=[models.FieldCondition(key="file_id", match=models.MatchValue(value=file_id))])
        client.set_payload(name, payload={PAYLOAD_ROOT: dict(values)}, points=models.FilterSelector(filter=where),
                           wait=True)
