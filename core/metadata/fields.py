"""Field names, kinds, values: checked and put in their stored form, from text (CLI, CSV) or JSON (API).

Stored forms (also the payload's, core/metadata/conditions.py): text → the string, number →
float, date → ``YYYY-MM-DDTHH:MM:SSZ`` in UTC (a day alone is its midnight), tags → a sorted list of
distinct strings (from a list, or text split on ``|`` or ``,``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from core.errors import InvalidInput
from core.metadata.conditions import KINDS, Kind

MAX_NAME_CHARS = 40
MAX_TEXT_CHARS = 500
MAX_TAGS = 50
# Letters of any script, digits, _ and -, a space inside: a CLI ``--where name=value`` can split it.
_NAME = re.compile(r"^[^\W][\w\- ]{0,39}$")
_TAG_SPLIT = re.compile(r"[|,]")


@dataclass(frozen=True)
class FieldDef:
    """A field a knowledge base's files can be filtered on: a user's (``id``) or an automatic one."""

    name: str
    kind: Kind
    key: str  # its key in the payload's ``meta`` object
    id: str = ""  # "" for an automatic field
    auto: bool = False


# Filled from what the source knows, in every knowledge base (core/metadata/auto.py).
AUTO_FIELDS: tuple[FieldDef, ...] = (
    FieldDef("file_name", "text", "file_name", auto=True),
    FieldDef("folder", "text", "folder", auto=True),
    FieldDef("title", "text", "title", auto=True),
    FieldDef("modified", "date", "modified", auto=True),
    FieldDef("owner", "text", "owner", auto=True),
)
AUTO_NAMES = {f.name for f in AUTO_FIELDS}


def user_key(field_id: str) -> str:
    return f"f{field_id}"


def check_name(name: str) -> str:
    name = (name or "").strip()
    if not _NAME.match(name) or name.endswith(" "):
        raise InvalidInput(f"field name {name!r}: use 1-{MAX_NAME_CHARS} letters, digits, '_', '-' or inner spaces")
    if name.lower() in AUTO_NAMES:
        raise InvalidInput(f"'{name}' is an automatic field every knowledge base has; pick another name")
    return name


def check_kind(kind: str) -> Kind:
    if kind not in KINDS:
        raise InvalidInput(f"field type {kind!r}: use one of {', '.join(KINDS)}")
    return kind  # type: ignore[return-value]


def as_number(raw: object, name: str) -> float:
    if isinstance(raw, bool):
        raise InvalidInput(f"{name}: {raw!r} is not a number")
    if isinstance(raw, (int, float)):
        value = float(raw)
    else:
        try:
            value = float(str(raw).strip())
        except ValueError:
            raise InvalidInput(f"{name}: {str(raw)!r} is not a number") from None
    if not math.isfinite(value):
        raise InvalidInput(f"{name}: {raw!r} is not a finite number")
    return value


def parse_moment(raw: object, name: str) -> tuple[datetime, bool]:
    """A moment in UTC, and whether it was a day alone (2025-03-01)."""
    text = raw.isoformat() if isinstance(raw, (date, datetime)) else str(raw).strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return datetime.fromisoformat(text).replace(tzinfo=timezone.utc), True
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"{name}: {text!r} is not a date (use 2025-03-01 or 2025-03-01T09:30:00Z)") from None
    moment = moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
    return moment, False


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def day_after(moment: datetime) -> datetime:
    return moment + timedelta(days=1)


def as_text(raw: object, name: str) -> str:
    if not isinstance(raw, (str, int, float)) or isinstance(raw, bool):
        raise InvalidInput(f"{name}: a text value is a string")
    text = str(raw).strip()
    if not text:
        raise InvalidInput(f"{name}: the text is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(f"{name}: longer than {MAX_TEXT_CHARS} characters")
    return text


def as_tags(raw: object, name: str) -> list[str]:
    items = raw if isinstance(raw, (list, tuple)) else _TAG_SPLIT.split(str(raw))
    tags = sorted({as_text(t, name) for t in items if str(t).strip()})
    if not tags:
        raise InvalidInput(f"{name}: no tags given")
    if len(tags) > MAX_TAGS:
        raise InvalidInput(f"{name}: more than {MAX_TAGS} tags")
    return tags


def stored_value(field: FieldDef, raw: object) -> str | float | list[str]:
    """``raw`` (text from a CLI or CSV, or a JSON value) in the field's stored form, or InvalidInput."""
    if field.kind == "number":
        return as_number(raw, field.name)
    if field.kind == "date":
        return rfc3339(parse_moment(raw, field.name)[0])
    if field.kind == "tags":
        return as_tags(raw, field.name)
    return as_text(raw, field.name)
