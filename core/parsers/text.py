"""Markdown and plain text, with encoding detection.

Order of trust: a byte-order mark, then strict UTF-8 (almost never wrong when it succeeds),
then charset-normalizer restricted to the encodings our users actually have (Chinese GB18030
and Big5, Western cp1252 / latin-1). An open-ended guess picks exotic code pages for short
files (cp1250 for German, cp775 for curly quotes), so the candidate list stays short.
"""

from __future__ import annotations

import codecs

from charset_normalizer import from_bytes

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.utf16 import bomless_utf16
from core.types import DocPart, ParsedDoc

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
LEGACY_CANDIDATES = ["gb18030", "big5", "cp1252", "latin_1"]


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode document bytes; returns (text, encoding name). Line endings become \\n."""
    encoding = _detect_encoding(data)
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise ParseError(f"the text could not be decoded as {encoding}", detail=str(exc)) from exc
    if encoding == "utf-8-sig" or text.startswith("\ufeff"):
        text = text.lstrip("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def _detect_encoding(data: bytes) -> str:
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    utf16 = bomless_utf16(data)
    if utf16:
        return utf16
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    best = from_bytes(data, cp_isolation=LEGACY_CANDIDATES).best()
    if best is not None:
        return _canonical(best.encoding)
    # charset-normalizer refused every candidate (very noisy bytes): latin-1 maps every byte,
    # so the text is at least complete; cp1252 first when it decodes, it is the common case.
    try:
        data.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin_1"


def _canonical(name: str) -> str:
    return codecs.lookup(name).name


def _heading_sections(text: str) -> list[DocPart]:
    """Split Markdown at ATX headings (outside code fences) so each part knows its heading path."""
    parts: list[DocPart] = []
    path: list[tuple[int, str]] = []
    buffer: list[str] = []
    in_fence = False

    def flush() -> None:
        body = "\n".join(buffer).strip("\n")
        if body.strip():
            parts.append(DocPart(text=body, heading_path=tuple(title for _, title in path)))
        buffer.clear()

    for line in text.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
        level = len(stripped) - len(stripped.lstrip("#"))
        is_heading = not in_fence and 1 <= level <= 6 and stripped[level:level + 1] in (" ", "\t")
        if is_heading and len(line) - len(stripped) < 4:
            flush()
            title = stripped[level:].strip().rstrip("#").strip()
            path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, title)]
        buffer.append(line)
    flush()
    return parts


class TextParser:
    name = "text"

    def __init__(self, markdown: bool):
        self.markdown = markdown
        self.name = "markdown" if markdown else "text"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        text, encoding = decode_text(data)
        parts = _heading_sections(text) if self.markdown else [DocPart(text=text.strip("\n"))]
        title = next((p.heading_path[0] for p in parts if p.heading_path), None)
        return ParsedDoc(
            source_name=source_name,
            mime="text/markdown" if self.markdown else "text/plain",
            parts=[p for p in parts if p.text.strip()],
            title=title,
            metadata={"encoding": encoding},
        )


PARSER = TextParser(markdown=True)
PLAIN_PARSER = TextParser(markdown=False)
