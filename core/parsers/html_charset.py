"""Decode HTML bytes: BOM, then the declared charset (HTTP header, <meta>), then UTF-8,
then a detected East-Asian encoding, then windows-1252 (what browsers assume for Western
pages without a declaration)."""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

from core.parsers.utf16 import bomless_utf16

_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
# Only trust a detector for multibyte CJK encodings: for single-byte Western text it picks
# near-random code pages (cp1250 for cp1252 text), while cp1252 is the browsers' default.
_CJK_ENCODINGS = {"gb18030", "gbk", "gb2312", "big5", "big5hkscs", "cp950", "cp936", "shift_jis", "cp932",
                  "euc_jp", "euc_kr", "cp949", "iso2022_jp", "hz"}
_ALIASES = {"iso-8859-1": "cp1252", "latin-1": "cp1252", "latin1": "cp1252", "us-ascii": "cp1252",
            "ascii": "cp1252", "gb2312": "gb18030", "gbk": "gb18030"}  # the supersets browsers use too


def _normal(name: str) -> str | None:
    name = name.strip().lower()
    name = _ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode_html(data: bytes, declared: str | None = None) -> tuple[str, str, list[str]]:
    """(text, encoding used, warnings)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace"), encoding, []
    utf16 = bomless_utf16(data)
    if utf16:
        return data.decode(utf16, errors="replace"), utf16, []
    warnings: list[str] = []
    candidates = []
    if declared:
        candidates.append(("HTTP header", declared))
    match = _META_CHARSET.search(data[:8192])
    if match:
        candidates.append(("<meta> tag", match.group(1).decode("ascii", "ignore")))
    for where, name in candidates:
        encoding = _normal(name)
        if encoding is None:
            warnings.append(f"unknown charset {name!r} declared in the {where}; detecting instead")
            continue
        try:
            return data.decode(encoding), encoding, warnings
        except UnicodeDecodeError:
            warnings.append(f"the page does not decode as its declared charset {name!r}; detecting instead")
    try:
        return data.decode("utf-8"), "utf-8", warnings
    except UnicodeDecodeError:
        pass
    best = from_bytes(data).best()
    if best is not None and best.encoding in _CJK_ENCODINGS:
        encoding = _normal(best.encoding) or best.encoding
        return data.decode(encoding, errors="replace"), encoding, warnings
    # cp1252 leaves five bytes undefined; they become U+FFFD rather than failing the page
    text = data.decode("cp1252", errors="replace")
    if "\ufffd" in text:
        warnings.append("some bytes are not valid windows-1252 and were replaced")
    return text, "cp1252", warnings
