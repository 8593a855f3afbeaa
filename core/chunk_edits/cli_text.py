"""How ``python -m core chunks ...`` read keywords and print without ``--json`` (the commands are
derived from core/services/chunk_edits.py's operations by core/cli/derived.py)."""

from __future__ import annotations


def keywords(typed: str) -> list[str]:
    """Comma-separated keywords; '' clears them."""
    return [k.strip() for k in typed.split(",") if k.strip()]


def _flags(c: dict) -> str:
    marks = [c["state"]] if c["state"] != "original" else []
    if c["disabled"]:
        marks.append("disabled")
    return f" [{', '.join(marks)}]" if marks else ""


def chunk_line(c: dict) -> str:
    keywords = f"  keywords: {', '.join(c['keywords'])}" if c["keywords"] else ""
    text = " ".join(c["text"].split())
    return f"#{c['chunk_index']}{_flags(c)}  {text[:100]}{'…' if len(text) > 100 else ''}{keywords}"


def listing_text(r: dict) -> str:
    head = f"{r['file_name']} ({r['status']}, {len(r['chunks'])} chunks)"
    notice = [f"note: {r['notice']}"] if r["notice"] else []
    return "\n".join([head, *notice, *map(chunk_line, r["chunks"])])


def _history_line(h: dict) -> str:
    note = f" — {h['note']}" if h["note"] else ""
    return f"{str(h['at'])[:19]}  {h['actor_name']}  {h['action']} #{h['chunk_index']}{note}"


def history_text(rows: list) -> str:
    return "\n".join(map(_history_line, rows)) or "no chunk edits"
