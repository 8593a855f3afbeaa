"""Knowledge bases: list, create, show, delete, share."""

from __future__ import annotations

from core.api.models import (
    Deleted,
    Empty,
    KbCreate,
    KbDetail,
    KbOut,
    KbRef,
    KbShare,
    Shared,
)
from core.api.registry import operation

TAG = "knowledge bases"


@operation("list_kbs", "GET", "/api/v1/kbs", input=Empty, output=list[KbOut], tag=TAG,
           summary="The knowledge bases you may read")
def list_kbs(engine, actor, _: Empty) -> list[KbOut]:
    return [KbOut.model_validate(kb) for kb in engine.list_kbs(actor)]


@operation("create_kb", "POST", "/api/v1/kbs", input=KbCreate, output=KbOut, tag=TAG, status_code=201,
           summary="Create a knowledge base (you own it)", example={"name": "handbook"})
def create_kb(engine, actor, data: KbCreate) -> KbOut:
    return KbOut.model_validate(engine.create_kb(actor, data.name, data.description, data.visibility))


@operation("get_kb", "GET", "/api/v1/kbs/{kb}", input=KbRef, output=KbDetail, tag=TAG,
           summary="One knowledge base with its file, chunk and vector counts")
def get_kb(engine, actor, data: KbRef) -> KbDetail:
    kb = engine.get_kb(actor, data.kb)
    stats = engine.kb_stats(actor, kb.id)
    return KbDetail.model_validate({**KbOut.model_validate(kb).model_dump(), **stats})


@operation("delete_kb", "DELETE", "/api/v1/kbs/{kb}", input=KbRef, output=Deleted, tag=TAG,
           summary="Delete a knowledge base, its files and every vector (owner or admin)")
def delete_kb(engine, actor, data: KbRef) -> Deleted:
    engine.delete_kb(actor, data.kb)
    return Deleted(deleted=data.kb)


@operation("share_kb", "POST", "/api/v1/kbs/{kb}/share", input=KbShare, output=Shared, tag=TAG,
           summary="Share a knowledge base with these users (replaces the list; owner or admin)",
           example={"users": []})
def share_kb(engine, actor, data: KbShare) -> Shared:
    return Shared(kb=data.kb, shared_with=engine.share_kb(actor, data.kb, data.users))
