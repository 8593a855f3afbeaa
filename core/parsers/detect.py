"""Content sniffing: decide which parser a file needs from its bytes.

The file name's extension is only a hint. It breaks ties (Markdown or plain text) and makes
error messages specific; it never overrides what the bytes say, except that a file named
.docx/.pptx/.xlsx must really be a zip archive, and a .csv/.tsv text file is read as a table (a clear error beats a confusing one later).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

from core.errors import ParseError, UnsupportedFormat
from core.messages import say
from core.parsers.formats import plugin_format_for
from core.parsers.utf16 import bomless_utf16
from core.parsers.kinds import (  # noqa: F401 (KINDS, SUPPORTED_EXTENSIONS: read from here too)
    EXTENSIONS_BY_KIND,
    KIND_LABELS,
    KINDS,
    SUPPORTED_DESCRIPTION,
    SUPPORTED_EXTENSIONS,
    KIND_OF_EXTENSION,
)


@dataclass(frozen=True)
class Detection:
    kind: str
    warning: str | None = None  # set when the extension and the content disagree


def extension_of(source_name: str) -> str:
    """Lower-case extension without the dot ('' when none); works for paths and URLs."""
    name = source_name.split("?", 1)[0].split("#", 1)[0]
    return PurePosixPath(name.replace("\\", "/")).suffix.lower().lstrip(".")


def _image_signature(head: bytes) -> bool:
    return (
        head.startswith(b"\x89PNG\r\n\x1a\n")
        or head.startswith(b"\xff\xd8\xff")
        or head.startswith((b"GIF87a", b"GIF89a"))
        or (head.startswith(b"RIFF") and head[8:12] == b"WEBP")
        or _is_bmp(head)
        or head.startswith((b"II*\x00", b"MM\x00*"))
    )


def _is_bmp(head: bytes) -> bool:
    # "BM" alone is too weak (a text file may start with it): check the DIB header size too.
    return len(head) >= 18 and head.startswith(b"BM") and int.from_bytes(head[14:18], "little") in (12, 40, 52, 56, 64, 108, 124)


def _zip_kind(data: bytes) -> str | None:
    """'docx' / 'pptx' / 'xlsx' from the archive's members, None for another kind of zip."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ParseError("the file looks like a zip archive but it is corrupt or truncated", detail=str(exc)) from exc
    if "word/document.xml" in names:
        return "docx"
    if "ppt/presentation.xml" in names:
        return "pptx"
    if "xl/workbook.xml" in names:
        return "xlsx"
    return None


_HTML_STARTS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<?xml")
_HTML_MARKERS = (b"<html", b"<head>", b"<body", b"<title>", b"<meta ", b"<div", b"<p>", b"<table")


def _looks_like_html(head: bytes, ext: str) -> bool:
    lowered = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lowered.startswith(_HTML_STARTS[:4]):
        return True
    if lowered.startswith(b"<?xml") and b"<html" in lowered[:1024]:
        return True
    if ext in EXTENSIONS_BY_KIND["markdown"] or ext in EXTENSIONS_BY_KIND["text"] or ext in EXTENSIONS_BY_KIND["csv"]:
        return False  # Markdown may embed HTML; only a real document start counts
    if ext in EXTENSIONS_BY_KIND["html"]:
        return True
    return lowered.startswith(b"<") and any(m in lowered[:4096] for m in _HTML_MARKERS)


def _looks_like_text(data: bytes, utf16: str | None) -> bool:
    """Text if decodable: no NUL bytes (unless UTF-16, ``utf16`` when it has no BOM) and few control
    characters."""
    sample = data[:65536]
    if sample.startswith((b"\xff\xfe", b"\xfe\xff")) or utf16:
        return True
    if b"\x00" in sample:
        return False
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13, 27))
    if controls > max(2, len(sample) // 200):
        return False
    try:
        sample.decode("utf-8")
        return True
    except UnicodeDecodeError as exc:
        # A multi-byte character cut by the sample window is still UTF-8.
        if exc.start >= len(sample) - 4 and len(data) > len(sample):
            return True
    # Legacy 8-bit and CJK encodings: printable bytes dominate, DEL and C1-heavy data are not text.
    high = sum(1 for b in sample if b >= 0x80)
    if high < len(sample) * 0.9:
        return True
    # Chinese text in GBK/GB18030 or Big5 is almost all high bytes: accept it when it decodes
    # strictly into mostly CJK characters (random binary does not).
    return any(_mostly_cjk(sample, enc) for enc in ("gb18030", "big5"))


def _mostly_cjk(sample: bytes, encoding: str) -> bool:
    try:
        decoded = sample.decode(encoding)
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 2:  # only a character cut at the window's end is forgiven
            return False
        decoded = sample[: exc.start].decode(encoding, errors="ignore")
    cjk = sum(1 for ch in decoded if "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef")
    return bool(decoded) and cjk >= len(decoded) * 0.6


def _markdown_hint(data: bytes) -> bool:
    head = data[:8192]
    return any(
        m in head for m in (b"\n# ", b"\n## ", b"```", b"\n- ", b"\n* ", b"](http", b"\n|")
    ) or head.startswith((b"# ", b"## ", b"---\n"))


def _mismatch(ext: str, kind: str) -> str | None:
    expected = KIND_OF_EXTENSION.get(ext)
    if not ext or expected is None or expected == kind:
        return None
    if {expected, kind} <= {"markdown", "text"}:
        return None
    return f"the file name ends in .{ext} but the content is {KIND_LABELS[kind]}; it was parsed as {KIND_LABELS[kind]}"


def sniff(data: bytes, source_name: str) -> Detection:
    """Detect the kind of a document from its bytes, the name being only a hint."""
    ext = extension_of(source_name)
    head = data[:4096]
    if not data:
        raise ParseError.of(say("parse.empty_file", name=source_name))
    plugin = plugin_format_for(ext, data)
    if plugin is not None:
        return Detection(kind=plugin.kind)

    if ext in ("docx", "pptx", "xlsx") and not head.startswith(b"PK"):
        label = {"docx": "Word", "pptx": "PowerPoint", "xlsx": "Excel"}[ext]
        if head.startswith(b"\xd0\xcf\x11\xe0"):
            raise ParseError.of(say("parse.old_office_as", label=label, ext=ext))
        raise ParseError(f"not a valid {label} file (not a zip archive)")

    kind: str | None = None
    if b"%PDF-" in data[:1024]:
        kind = "pdf"
    elif head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        kind = _zip_kind(data)
        if kind is None:
            raise UnsupportedFormat(
                f"{source_name} is a zip archive but not a Word, PowerPoint or Excel document; "
                f"supported: {SUPPORTED_DESCRIPTION}"
            )
    elif head.startswith(b"\xd0\xcf\x11\xe0"):
        raise UnsupportedFormat.of(say("parse.old_office", name=source_name, supported=SUPPORTED_DESCRIPTION))
    elif _image_signature(head):
        kind = "image"
    elif _looks_like_text(data, utf16 := bomless_utf16(data)):
        if _looks_like_html(head.decode(utf16, errors="ignore").encode() if utf16 else head, ext):
            kind = "html"
        elif ext in EXTENSIONS_BY_KIND["markdown"]:
            kind = "markdown"
        elif ext in EXTENSIONS_BY_KIND["csv"]:
            kind = "csv"
        elif ext in EXTENSIONS_BY_KIND["text"]:
            kind = "text"
        else:
            kind = "markdown" if _markdown_hint(data) else "text"

    if kind is None:
        if ext == "pdf":
            raise ParseError(f"not a valid PDF file (no PDF header): {source_name}")
        raise UnsupportedFormat.of(say("parse.unsupported", name=source_name, supported=SUPPORTED_DESCRIPTION))
    return Detection(kind=kind, warning=_mismatch(ext, kind))


def detect_kind(data: bytes, source_name: str) -> str:
    """One of KINDS; raises ParseError / UnsupportedFormat for content no parser takes."""
    return sniff(data, source_name).kind
