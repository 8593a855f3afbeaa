"""The parser registry: sniff the content, load the one parser it needs, check the result.

Parser modules are imported lazily: the PDF parser only pulls in OCR (onnxruntime, OpenCV,
about 300 MB resident) when a page actually needs it, and a Markdown upload loads neither.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from core.errors import NotFound, ParseError
from core.parsers.base import ParseContext, Parser
from core.parsers.detect import (
    KINDS,
    SUPPORTED_DESCRIPTION,
    SUPPORTED_EXTENSIONS,
    detect_kind,
    extension_of,
    sniff,
)
from core.plugins import FORMATS
from core.types import ParsedDoc

__all__ = [
    "KINDS",
    "SUPPORTED_DESCRIPTION",
    "SUPPORTED_EXTENSIONS",
    "detect_kind",
    "extension_of",
    "get_parser",
    "parse_bytes",
    "parse_path",
    "to_json",
]

def get_parser(kind: str) -> Parser:
    """The parser object for a kind (a registered document format), importing its module on first use."""
    fmt = FORMATS.find(kind)
    if fmt is None:
        raise ParseError(f"no parser for kind {kind!r}; known kinds: {', '.join(FORMATS.names())}")
    return fmt.load()


def _check_size(size: int, source_name: str, ctx: ParseContext) -> None:
    from core.upload_limits import UploadLimits

    UploadLimits.of(ctx.settings).check(source_name, size)


def _empty_reason(kind: str, doc: ParsedDoc, ctx: ParseContext) -> str:
    if kind in ("pdf", "image") and not ctx.settings.ocr_enabled:
        return "it may be a scan or a picture of text, and OCR is turned off (setting parsing.ocr_enabled)"
    if kind == "pdf" and not doc.metadata.get("ocr_pages") and not doc.metadata.get("ocr_picture_pages"):
        return "no page looked like a scan and no picture was large enough to hold text, so nothing was sent to OCR"
    if kind in ("pdf", "image"):
        return "OCR found no readable text either; the pages may be blank or pictures without text"
    return "the document appears to be empty"


def _run_parser(parser: Parser, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
    """``parser.parse``, with running out of stack or memory made this file's own ParseError.

    A file nested past Python's recursion limit, or one whose decoded content does not fit in
    memory, fails alone with a reason instead of a generic error (or a batch stopped by it)."""
    failure: ParseError | None = None
    try:
        return parser.parse(data, source_name, ctx)
    except RecursionError as exc:
        failure = ParseError(f"{source_name} nests its content too deeply to be read (its structure is deeper than "
                             "the parser can follow); flatten it or save it in another format", detail=str(exc))
    except MemoryError:
        failure = ParseError(f"{source_name} needs more memory to read than this server has free: its content "
                             "expands far beyond its file size; split it into smaller files")
    # raised here, outside the except blocks, so the failed parse's frames (and the memory they
    # hold) are released before the error travels on
    raise failure


def parse_bytes(data: bytes, source_name: str, ctx: ParseContext | None = None) -> ParsedDoc:
    """Parse a document held in memory; raises a ParseError subclass with a clear message."""
    ctx = ctx or ParseContext()
    _check_size(len(data), source_name, ctx)
    detection = sniff(data, source_name)
    parser = get_parser(detection.kind)
    doc = _run_parser(parser, data, source_name, ctx)
    if not doc.text.strip():
        raise ParseError(f"no text could be extracted from {source_name}: {_empty_reason(detection.kind, doc, ctx)}")
    if detection.warning:
        doc.warnings.insert(0, detection.warning)
    doc.metadata.setdefault("kind", detection.kind)
    doc.metadata.setdefault("parser", parser.name)
    if not doc.mime:
        doc.mime = FORMATS.get(detection.kind).mime
    return doc


def parse_path(path: Path, ctx: ParseContext | None = None) -> ParsedDoc:
    """Parse a file on disk, checking its size before reading it."""
    ctx = ctx or ParseContext()
    path = Path(path)
    if not path.is_file():
        raise NotFound(f"file not found: {path}")
    _check_size(path.stat().st_size, path.name, ctx)
    return parse_bytes(path.read_bytes(), path.name, ctx)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def to_json(doc: ParsedDoc) -> dict[str, Any]:
    """A JSON-ready view of a parsed document (for `python -m core parse --json`)."""
    return {
        "source_name": doc.source_name,
        "mime": doc.mime,
        "title": doc.title,
        "metadata": _jsonable(doc.metadata),
        "warnings": list(doc.warnings),
        "parts": [_jsonable(dataclasses.asdict(part)) for part in doc.parts],
        "text": doc.text,
    }
