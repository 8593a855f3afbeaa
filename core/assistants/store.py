"""Assistants in the database: create, list, read, change, delete, with a knowledge base's access rules.

Readable by its owner, by users it is shared with (visibility "shared" + a share row), by everyone
when public, and by admins; changed or deleted by its owner or an admin. An unknown and an
unreadable assistant give the same "not found", so private names do not leak. Its metadata filter
is checked against its knowledge bases' fields at each change. Its knowledge bases
are checked at each change (the author must be able to read every one) and again at each use,
for the caller (preset.py): an assistant never widens what its caller may read.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from sqlmodel import Session, delete, or_, select

from core.accounts.access import can_read_kb, resolve_kb
from core.assistants.models import Assistant, AssistantShare
from core.assistants.types import AssistantView
from core.db.database import Database
from core.db.models import KnowledgeBase, User, utcnow
from core.errors import AlreadyExists, InvalidInput, NotFound, PermissionDenied
from core.metadata.store import checked_filter
from core.names import clean_name, clean_text, printable, user_name_key
from core.types import Actor

VISIBILITIES = ("private", "shared", "public")
MODES = ("strict", "normal")
MAX_NAME_CHARS = 120
MAX_TEXT_CHARS = 20_000
TUNING = ("mode", "strict_min_similarity", "normal_min_similarity", "top_k", "prompt", "refusal_text", "where")


def can_use(session: Session, actor: Actor, a: Assistant) -> bool:
    if actor.is_admin or a.owner_id == actor.user_id or a.visibility == "public":
        return True
    if a.visibility == "shared":
        return session.get(AssistantShare, (a.id, actor.user_id)) is not None
    return False


def can_change(actor: Actor, a: Assistant) -> bool:
    return actor.is_admin or a.owner_id == actor.user_id


def usable(session: Session, actor: Actor) -> list[Assistant]:
    query = select(Assistant).order_by(Assistant.name)
    if not actor.is_admin:
        shared_ids = select(AssistantShare.assistant_id).where(AssistantShare.user_id == actor.user_id)
        query = query.where(or_(Assistant.owner_id == actor.user_id, Assistant.visibility == "public",
                                (Assistant.visibility == "shared") & Assistant.id.in_(shared_ids)))
    return list(session.exec(query))


def resolve(session: Session, actor: Actor, ref: str, *, write: bool = False) -> Assistant:
    """By id or name among those the actor may use (their own first when names clash)."""
    a = session.get(Assistant, ref)
    if a is None or not can_use(session, actor, a):
        name = unicodedata.normalize("NFC", ref.strip())
        matches = [x for x in usable(session, actor) if x.name == name]
        if len(matches) > 1:
            matches = [x for x in matches if x.owner_id == actor.user_id] or matches
        if len(matches) != 1:
            raise NotFound(f"assistant '{printable(ref)}' not found" if not matches
                           else f"several assistants are named '{printable(ref)}'; use its id")
        a = matches[0]
    if write and not can_change(actor, a):
        raise PermissionDenied(f"only the owner of assistant '{a.name}' or an admin may change it")
    return a


def _check_name(name: str) -> str:
    name = clean_name(name, "assistant", max_chars=MAX_NAME_CHARS)
    if "/" in name or set(name) == {"."}:  # one path segment: /api/v1/assistants/NAME
        raise InvalidInput(f"the assistant name '{printable(name)}' must not contain '/' or be only dots")
    return name


def _check_tuning(values: dict[str, Any]) -> dict[str, Any]:
    if values.get("mode") is not None and values["mode"] not in MODES:
        raise InvalidInput(f"mode must be strict or normal, not {printable(str(values['mode']))!r}")
    for key in ("strict_min_similarity", "normal_min_similarity"):
        v = values.get(key)
        if v is not None and not 0 <= v <= 1:
            raise InvalidInput(f"{key} must be between 0 and 1")
    if values.get("top_k") is not None and not 1 <= values["top_k"] <= 50:
        raise InvalidInput("top_k must be between 1 and 50")
    for key in ("prompt", "refusal_text"):
        if values.get(key) is not None:
            values[key] = clean_text(values[key], f"assistant {key.replace('_', ' ')}", MAX_TEXT_CHARS)
    if values.get("prompt") and "{{CONTEXT}}" not in values["prompt"]:
        raise InvalidInput("the assistant's prompt must contain {{CONTEXT}} (where the passages go)")
    return values


def _filter(session: Session, actor: Actor, name: str, where: dict | None, kb_ids: list[str]) -> dict | None:
    """Its filter checked against the fields of its knowledge bases (the author's view of them): a
    field none of them has, or a value that does not suit the field, is refused at saving, naming it."""
    try:
        return checked_filter(session, actor, where, kb_ids or None)
    except InvalidInput as e:
        raise InvalidInput(f"assistant '{name}': {e}") from None


def _kb_ids(session: Session, actor: Actor, kbs: list[str]) -> list[str]:
    """The author's knowledge bases by id or name: each must be readable by the author."""
    ids: list[str] = []
    for ref in kbs:
        kb_id = resolve_kb(session, actor, ref).id
        if kb_id not in ids:
            ids.append(kb_id)
    return ids


def _users(session: Session, names: list[str]) -> list[User]:
    by_key: dict[str, list[User]] = {}
    for user in session.exec(select(User)).all():
        by_key.setdefault(user_name_key(user.name), []).append(user)
    found = []
    for name in names:
        matches = by_key.get(user_name_key(name.strip()), [])
        exact = [u for u in matches if u.name == name.strip()]
        if not matches or (len(matches) > 1 and len(exact) != 1):
            raise NotFound(f"user '{printable(name)}' not found (or several look alike: type the exact name)")
        found.append(exact[0] if exact else matches[0])
    return found


def _share(session: Session, a: Assistant, user_names: list[str]) -> None:
    users = _users(session, user_names)
    session.exec(delete(AssistantShare).where(AssistantShare.assistant_id == a.id))
    for user in users:
        session.add(AssistantShare(assistant_id=a.id, user_id=user.id))
    if users and a.visibility == "private":
        a.visibility = "shared"


def create(db: Database, actor: Actor, name: str, *, kbs: list[str], description: str = "",
           visibility: str = "private", shared_with: list[str] | None = None, **tuning: Any) -> Assistant:
    name = _check_name(name)
    if visibility not in VISIBILITIES:
        raise InvalidInput(f"visibility must be one of {', '.join(VISIBILITIES)}")
    tuning = _check_tuning({k: v for k, v in tuning.items() if v is not None})
    with db.write() as s:
        if s.exec(select(Assistant).where(Assistant.owner_id == actor.user_id, Assistant.name == name)).first():
            raise AlreadyExists(f"you already have an assistant named '{name}'")
        kb_ids = _kb_ids(s, actor, kbs)
        tuning["where"] = _filter(s, actor, name, tuning.get("where"), kb_ids)
        a = Assistant(name=name, description=clean_text(description, "assistant description", MAX_TEXT_CHARS),
                      owner_id=actor.user_id, visibility=visibility, kb_ids=kb_ids, **tuning)
        s.add(a)
        s.flush()
        if shared_with:
            _share(s, a, shared_with)
        s.add(a)
    return a


def update(db: Database, actor: Actor, ref: str, changes: dict[str, Any]) -> Assistant:
    """``changes``: the fields given (None: unchanged). ``clear``: tuning fields back to the global setting."""
    clear = changes.pop("clear", None) or []
    for key in clear:
        if key not in TUNING or key == "mode":
            raise InvalidInput(f"cannot clear {printable(key)!r}: one of {', '.join(TUNING[1:])}")
    given = {k: v for k, v in changes.items() if v is not None}
    _check_tuning(given)
    recheck = "where" in given or "kbs" in given  # its filter's fields must be in its (new) knowledge bases
    with db.write() as s:
        a = resolve(s, actor, ref, write=True)
        if "name" in given and given["name"] != a.name:
            name = _check_name(given.pop("name"))
            if s.exec(select(Assistant).where(Assistant.owner_id == a.owner_id, Assistant.name == name)).first():
                raise AlreadyExists(f"an assistant named '{name}' exists already")
            a.name = name
        given.pop("name", None)
        if "visibility" in given and given["visibility"] not in VISIBILITIES:
            raise InvalidInput(f"visibility must be one of {', '.join(VISIBILITIES)}")
        if "kbs" in given:
            a.kb_ids = _kb_ids(s, actor, given.pop("kbs"))
        if "shared_with" in given:
            _share(s, a, given.pop("shared_with"))
        for key, value in given.items():
            setattr(a, key, value)
        for key in clear:
            setattr(a, key, "" if key in ("prompt", "refusal_text") else None)
        if recheck:
            a.where = _filter(s, actor, a.name, a.where, a.kb_ids)
        a.updated_at = utcnow()
        s.add(a)
    return a


def remove(db: Database, actor: Actor, ref: str) -> str:
    with db.write() as s:
        a = resolve(s, actor, ref, write=True)
        s.exec(delete(AssistantShare).where(AssistantShare.assistant_id == a.id))
        s.delete(a)
        return a.name


def view(session: Session, actor: Actor, a: Assistant) -> AssistantView:
    kbs = [session.get(KnowledgeBase, kb_id) for kb_id in a.kb_ids]
    readable = [kb for kb in kbs if kb is not None and can_read_kb(session, actor, kb)]
    owner = session.get(User, a.owner_id)
    mine = can_change(actor, a)
    shared = (list(session.exec(select(User.name).join(AssistantShare, AssistantShare.user_id == User.id)
                                .where(AssistantShare.assistant_id == a.id))) if mine else [])
    return AssistantView(id=a.id, name=a.name, description=a.description, owner=owner.name if owner else a.owner_id,
                         visibility=a.visibility, mode=a.mode, kbs=[kb.name for kb in readable],
                         kb_ids=[kb.id for kb in readable],
                         hidden_kbs=len(kbs) - len(readable), strict_min_similarity=a.strict_min_similarity,
                         normal_min_similarity=a.normal_min_similarity, top_k=a.top_k, prompt=a.prompt,
                         refusal_text=a.refusal_text, where=a.where, shared_with=sorted(shared), may_change=mine)
