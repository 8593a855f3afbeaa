"""How ``python -m core fields|meta`` read their words and print without ``--json`` (the commands are
derived from core/services/metadata.py's operations by core/cli/derived.py)."""

from __future__ import annotations

from pathlib import Path

from core.errors import InvalidInput
from core.names import printable


def values(items: list[str]) -> dict[str, str | None]:
    """``name=value`` pairs (``name=`` removes the value)."""
    out: dict[str, str | None] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise InvalidInput(f"{item!r}: write field=value (field= removes it)")
        out[name.strip()] = value.strip() or None
    return out


def csv_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None


def fields_text(rows: list) -> str:
    return "\n".join(f"{r['name']}\t{r['kind']}" + ("\t(automatic)" if r["auto"] else "") for r in rows)


def file_values_text(r: dict) -> str:
    lines = [f"{r['file_name']} ({r['file_id']})"]
    for name, value in r["values"].items():
        lines.append(f"  {name}: {', '.join(value) if isinstance(value, list) else value}")
    return "\n".join(lines)


def import_text(p: dict) -> str:
    return "\n".join([f"{p['updated']} file(s) updated"]
                     + [f"line {e['line']}: {printable(e['message'])}" for e in p["errors"]])
