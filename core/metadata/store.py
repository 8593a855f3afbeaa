"""Metadata fields of a knowledge base and the values of its files, with their access rules: who
may read the knowledge base lists its fields and its files' values; its owner or an admin
defines and deletes fields and sets values (as for its files). Every change is written to the
chunks' payload (payload.py) in the same call, no re-embedding."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import delete, select

from core.accounts.access import check_file, readable_kbs, resolve_kb
from core.db.database import Database
from core.db.models import FileRecord, utcnow
from core.errors import AlreadyExists, InvalidInput, NotFound
from core.metadata import payload
from core.metadata.fields import AUTO_FIELDS, FieldDef, check_kind, check_name, stored_value, user_key
from core.metadata.models import FileMetadataValue, MetadataField
from core.metadata.where import Where, check_where, condition, conditions
from core.metadata.conditions import MetaCondition
from core.names import printable
from core.types import Actor
from core.vectorstore.base import VectorStore, kb_collection_prefix

MAX_FIELDS_PER_KB = 50


@dataclass
class FieldInfo:
    name: str
    kind: str
    auto: bool = False  # filled from the source; cannot be set or deleted
    id: str = ""


@dataclass
class FileMetadata:
    file_id: str
    file_name: str
    kb_id: str
    values: dict[str, Any] = field(default_factory=dict)  # field name -> stored value (auto ones too)


def info(f: FieldDef) -> FieldInfo:
    return FieldInfo(f.name, f.kind, f.auto, f.id)


def list_fields(db: Database, actor: Actor, kb_ref: str) -> list[FieldInfo]:
    with db.read() as s:
        kb = resolve_kb(s, actor, kb_ref)
        return [info(f) for f in payload.all_fields(s, kb.id)]


def define_field(db: Database, store: VectorStore, actor: Actor, kb_ref: str, name: str, kind: str) -> FieldInfo:
    name, kind = check_name(name), check_kind(kind)
    try:
        with db.write() as s:
            kb = resolve_kb(s, actor, kb_ref, write=True)
            have = list(s.exec(select(MetadataField).where(MetadataField.kb_id == kb.id)))
            if any(f.name == name for f in have):
                raise AlreadyExists(f"knowledge base '{kb.name}' already has a field '{printable(name)}'")
            if len(have) >= MAX_FIELDS_PER_KB:
                raise InvalidInput(f"a knowledge base has at most {MAX_FIELDS_PER_KB} fields")
            row = MetadataField(kb_id=kb.id, name=name, kind=kind, created_by=actor.user_id)
            s.add(row)
            s.flush()
            made = FieldDef(row.name, row.kind, user_key(row.id), id=row.id)  # type: ignore[arg-type]
            kb_id = kb.id
    except IntegrityError:  # defined at the same moment by another call
        raise AlreadyExists(f"the knowledge base already has a field '{printable(name)}'") from None
    _index(store, kb_id, [*AUTO_FIELDS, made])
    return info(made)


def _index(store: VectorStore, kb_id: str, fields: list[FieldDef]) -> None:
    """The payload indexes of these fields in the knowledge base's collections (before any value)."""
    prefix = kb_collection_prefix(kb_id)
    for name in store.list_collections():
        if name.startswith(prefix):
            store.set_file_metadata(name, {}, payload.indexes(fields))


def delete_field(db: Database, store: VectorStore, actor: Actor, kb_ref: str, name: str) -> None:
    with db.write() as s:
        kb = resolve_kb(s, actor, kb_ref, write=True)
        row = s.exec(select(MetadataField).where(MetadataField.kb_id == kb.id, MetadataField.name == name.strip())).first()
        if row is None:
            raise NotFound(f"knowledge base '{kb.name}' has no field '{printable(name)}'")
        files = list(s.exec(select(FileMetadataValue.file_id).where(FileMetadataValue.field_id == row.id)))
        s.exec(delete(FileMetadataValue).where(FileMetadataValue.field_id == row.id))
        s.delete(row)
    payload.write(store, db, files)  # its values leave the chunks' payload


def _file_fields(s, actor: Actor, file_ref: str, *, write: bool) -> tuple[FileRecord, dict[str, FieldDef]]:
    rec = check_file(s, actor, s.get(FileRecord, file_ref), file_ref, write=write)
    if not rec.kb_id:
        raise InvalidInput("metadata fields belong to knowledge-base files, not to a chat's files")
    return rec, {f.name: f for f in payload.all_fields(s, rec.kb_id)}


def file_values(db: Database, actor: Actor, file_ref: str) -> FileMetadata:
    with db.read() as s:
        rec, fields = _file_fields(s, actor, file_ref, write=False)
        values = payload.values_of(s, [rec])[rec.id]
    by_key = {f.key: name for name, f in fields.items()}
    return FileMetadata(rec.id, rec.name, rec.kb_id or "",
                        {by_key[k]: v for k, v in values.items() if k in by_key and v is not None})


def checked_values(fields: dict[str, FieldDef], values: dict[str, Any]) -> dict[str, Any]:
    """Field name -> stored value (None: remove it), or InvalidInput naming the first bad one."""
    out: dict[str, Any] = {}
    for name, raw in values.items():
        f = fields.get(str(name).strip())
        if f is None:
            raise InvalidInput(f"no field '{printable(str(name))}' in this knowledge base")
        if f.auto:
            raise InvalidInput(f"'{f.name}' is filled automatically and cannot be set")
        out[f.id] = None if raw is None or raw == "" else stored_value(f, raw)
    return out


def store_values(s, actor: Actor, file_id: str, by_field_id: dict[str, Any]) -> None:
    """In the caller's transaction: set (or, for None, remove) these values of one file."""
    for field_id, value in by_field_id.items():
        row = s.get(FileMetadataValue, (file_id, field_id))
        if value is None:
            if row is not None:
                s.delete(row)
            continue
        if row is None:
            row = FileMetadataValue(file_id=file_id, field_id=field_id)
        row.value, row.updated_by, row.updated_at = {"v": value}, actor.user_id, utcnow()
        s.add(row)


def set_values(db: Database, store: VectorStore, actor: Actor, file_ref: str, values: dict[str, Any]) -> FileMetadata:
    if not isinstance(values, dict) or not values:
        raise InvalidInput("give at least one field and its value")
    with db.write() as s:
        rec, fields = _file_fields(s, actor, file_ref, write=True)
        store_values(s, actor, rec.id, checked_values(fields, values))
    payload.write(store, db, [rec.id])
    return file_values(db, actor, rec.id)


def resolve_where(db: Database, actor: Actor, where: Where | None,
                  kb_ids: list[str] | None = None) -> dict[str, tuple[MetaCondition, ...]] | None:
    """A filter as each knowledge base's conditions (only those the actor may read; ``kb_ids``
    narrows them). A knowledge base left out has none of the named fields: nothing in it matches.
    None: no filter. A field no knowledge base has is an error, not an empty answer."""
    where = check_where(where)
    if where is None:
        return None
    with db.read() as s:
        readable = [k.id for k in readable_kbs(s, actor)]
        ids = [k for k in readable if kb_ids is None or k in set(kb_ids)]
        own = payload.user_fields(s, ids)
    out: dict[str, tuple[MetaCondition, ...]] = {}
    known: set[str] = {f.name for f in AUTO_FIELDS}
    for kb_id in ids:
        fields = {f.name: f for f in [*AUTO_FIELDS, *own.get(kb_id, [])]}
        known |= set(fields)
        conds = conditions(fields, where)
        if conds is not None:
            out[kb_id] = conds
    unknown = [n for n in where if n.strip() not in known]
    if unknown:
        raise InvalidInput(f"no knowledge base you search has a field named {', '.join(map(repr, unknown))}")
    return out


def checked_filter(s, actor: Actor, where: Where | None, kb_ids: list[str] | None) -> Where | None:
    """A filter to keep (an assistant's preset), checked against the fields of these knowledge bases
    (None: every one the actor may read): each field must be in at least one of them, and its value
    must suit the field's kind in every one that has it. None or {}: no filter."""
    where = check_where(where)
    if where is None:
        return None
    readable = [k.id for k in readable_kbs(s, actor)]
    ids = [k for k in readable if kb_ids is None or k in set(kb_ids)]
    own = payload.user_fields(s, ids)
    by_kb = [{f.name: f for f in [*AUTO_FIELDS, *own.get(kb_id, [])]} for kb_id in ids] or [
        {f.name: f for f in AUTO_FIELDS}]
    for name, value in where.items():
        having = [fields[name.strip()] for fields in by_kb if name.strip() in fields]
        if not having:
            raise InvalidInput(f"the filter's field '{printable(name)}' is in none of its knowledge bases")
        for f in having:
            condition(f, value)  # InvalidInput naming the field and its kind
    return {name.strip(): value for name, value in where.items()}


def missing_fields(s, actor: Actor, where: Where | None, kb_ids: list[str] | None) -> list[str]:
    """The filter's fields that none of these knowledge bases the actor may read has (None: every
    readable one). An assistant's filter over a caller's share with none of them searches nothing."""
    where = check_where(where)
    if where is None:
        return []
    ids = [k.id for k in readable_kbs(s, actor) if kb_ids is None or k.id in set(kb_ids)]
    own = payload.user_fields(s, ids)
    known = {f.name for f in AUTO_FIELDS} | {f.name for kb_id in ids for f in own.get(kb_id, [])}
    return [name.strip() for name in where if name.strip() not in known]
