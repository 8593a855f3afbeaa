"""Filters as callers write them, turned into the typed conditions of one knowledge base's fields.

The one written form (API ``where``, the OpenAI endpoint's ``ragdesk_filter``, the CLI's
``--where`` after ``from_cli``): ``{field name: value}``, every field's condition must hold:

- text: ``"Lisbon"``, or a list (any of them);
- tags: ``"hr"`` or ``["hr", "travel"]``: the file has at least one of them;
- number: ``2025`` (equal), or a range ``{"gte": 2020, "lt": 2026}`` (keys gte, gt, lte, lt);
- date: ``"2025-03-01"`` (that day), ``"2025-03-01T09:30:00Z"`` (that moment), or a range of them;
  a day as an upper bound includes that whole day.

CLI: ``--where year=2025``, ``year>=2020``, ``date=2025-01-01..2025-06-30`` (either side may be
empty), ``topics=hr|travel`` (any of); several ``--where`` on one field combine into one range.

In a question, the same conditions as ``#mentions``: ``#office=Lisbon #year>=2024 hotel costs?``
(``mentioned``); they add to the question's other filter, never replace one of its fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Any

from core.errors import InvalidInput
from core.metadata.conditions import MetaCondition
from core.metadata.fields import FieldDef, as_number, as_text, day_after, parse_moment, rfc3339

BOUNDS = ("gte", "gt", "lte", "lt")
MAX_CONDITIONS = 20
MAX_ANY_OF = 100
_CLI = re.compile(r"^\s*([^=<>]+?)\s*(>=|<=|=|>|<)\s*(.*)$", re.S)
_OPS = {">=": "gte", "<=": "lte", ">": "gt", "<": "lt"}

Where = dict[str, Any]
# a #mention with a comparison in it (#office=Lisbon, #year>=2024): a filter, not a knowledge base or a file
MENTION = re.compile(r"(?<![\w#])#([^\s#=<>]+(?:>=|<=|=|>|<)[^\s，。！？、；：（）【】「」《》]+)")
_TRAILING = "，。！？,.!?;；:：)）]】"


def is_filter_mention(token: str) -> bool:
    return bool(MENTION.fullmatch("#" + token))


def filter_mentions(question: str) -> list[str]:
    """The question's #mentions that read as a filter (``office=Lisbon``), as written."""
    return [m.group(1).rstrip(_TRAILING) for m in MENTION.finditer(question or "")]


def mentioned(question: str, where: Where | None, names: Callable[[], Collection[str]] = frozenset) -> Where | None:
    """``where`` with the question's filter #mentions added (each a condition in the CLI's form).
    A field both in ``where`` and in a mention is refused: a mention narrows, it never replaces
    a condition (an assistant's filter stays whole). ``names``: the lower-cased names a #mention
    may mean (knowledge bases and files, core/answering/references.py), asked only when a mention
    reads as a filter. A name wins: ``#a=b.md`` is the file a=b.md when one is readable, a filter otherwise."""
    items = filter_mentions(question)
    if items:
        known = names()
        items = [item for item in items if item.lower() not in known]
    found = from_cli(items)
    if not found:
        return where
    clash = [name for name in found if name in (where or {})]
    if clash:
        raise InvalidInput(f"the filter on '{clash[0]}' is given twice (in the question's #mentions and the filter)")
    return {**(where or {}), **found}


CLI_HELP = ("metadata filter (repeatable, all must hold): field=value, field>=N, field<N, "
            "field=FROM..TO (numbers, dates; an open end allowed), tags=a|b (any of)")


def from_cli(items: list[str] | tuple[str, ...]) -> Where | None:
    """``--where`` strings as the written form (see the module doc); None when there are none."""
    where: Where = {}
    for item in items or ():
        m = _CLI.match(item)
        if not m or not m.group(3).strip():
            raise InvalidInput(f"--where {item!r}: write field=value, field>=value, field=from..to or field=a|b")
        name, op, value = m.group(1).strip(), m.group(2), m.group(3).strip()
        if op == "=" and ".." in value:
            low, high = (v.strip() for v in value.split("..", 1))
            bounds = {k: v for k, v in (("gte", low), ("lte", high)) if v}
            if not bounds:
                raise InvalidInput(f"--where {item!r}: a range needs at least one end")
            _merge(where, name, bounds, item)
        elif op == "=":
            parts = [p.strip() for p in value.split("|") if p.strip()]
            _merge(where, name, parts if len(parts) > 1 else parts[0], item)
        else:
            _merge(where, name, {_OPS[op]: value}, item)
    return where or None


def _merge(where: Where, name: str, value: Any, item: str) -> None:
    if name not in where:
        where[name] = value
    elif isinstance(where[name], dict) and isinstance(value, dict) and not set(where[name]) & set(value):
        where[name] = {**where[name], **value}
    else:
        raise InvalidInput(f"--where {item!r}: '{name}' is given twice")


def check_where(where: Where | None) -> Where | None:
    """The written form's shape (before any field is looked up); None or {} mean no filter."""
    if not where:
        return None
    if not isinstance(where, dict):
        raise InvalidInput("a filter is an object of field names and values")
    if len(where) > MAX_CONDITIONS:
        raise InvalidInput(f"a filter takes at most {MAX_CONDITIONS} fields")
    for name, value in where.items():
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput("a filter's field names are non-empty strings")
        if isinstance(value, dict):
            unknown = set(value) - set(BOUNDS)
            if unknown or not value:
                raise InvalidInput(f"filter on '{name}': a range takes {', '.join(BOUNDS)}")
        elif isinstance(value, list):
            if not value or len(value) > MAX_ANY_OF:
                raise InvalidInput(f"filter on '{name}': a list takes 1-{MAX_ANY_OF} values")
        elif value is None or isinstance(value, bool):
            raise InvalidInput(f"filter on '{name}': {value!r} is not a value to filter on")
    return where


def condition(field: FieldDef, value: Any) -> MetaCondition:
    """One field's condition, its values checked against the field's kind."""
    label = f"filter on '{field.name}' ({field.kind})"
    if field.kind in ("text", "tags"):
        if isinstance(value, dict):
            raise InvalidInput(f"{label}: a {field.kind} field takes a value or a list, not a range")
        values = value if isinstance(value, list) else [value]
        return MetaCondition(field.key, field.kind, any_of=tuple(dict.fromkeys(as_text(v, label) for v in values)))
    if isinstance(value, list):
        raise InvalidInput(f"{label}: give one value or a range (gte, gt, lte, lt), not a list")
    if field.kind == "number":
        if isinstance(value, dict):
            return MetaCondition(field.key, "number", **{k: as_number(v, label) for k, v in value.items()})
        number = as_number(value, label)
        return MetaCondition(field.key, "number", gte=number, lte=number)
    if isinstance(value, dict):
        return MetaCondition(field.key, "date", **_date_bounds(value, label))
    moment, day_only = parse_moment(value, label)
    if day_only:
        return MetaCondition(field.key, "date", gte=rfc3339(moment), lt=rfc3339(day_after(moment)))
    return MetaCondition(field.key, "date", gte=rfc3339(moment), lte=rfc3339(moment))


def _date_bounds(value: dict, label: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for bound, raw in value.items():
        moment, day_only = parse_moment(raw, label)
        if day_only and bound == "lte":  # through the end of that day
            bound, moment = "lt", day_after(moment)
        elif day_only and bound == "gt":  # after that whole day
            bound, moment = "gte", day_after(moment)
        out[bound] = rfc3339(moment)
    return out


def conditions(fields: dict[str, FieldDef], where: Where) -> tuple[MetaCondition, ...] | None:
    """The conditions in one knowledge base with these fields (by name); None when it lacks one of
    the fields: none of its files can match."""
    found = []
    for name, value in where.items():
        field = fields.get(name.strip())
        if field is None:
            return None
        found.append(condition(field, value))
    return tuple(found)


def matches(values: dict[str, object], conds: tuple[MetaCondition, ...]) -> bool:
    """Whether a file with these payload values (key -> value) meets every condition."""
    return all(c.matches(values.get(c.key)) for c in conds)
