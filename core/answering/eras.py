"""Centuries and decades, written one way in both languages so a question's era is found in a
passage that writes it otherwise: "15th century", "fifteenth century", 15世纪 and 十五世纪 are all
"15 century"; "1980s", "the '80s", 80年代 and 20世纪80年代 are "1980 decade"."""

from __future__ import annotations

import re

from core.answering.coverage import numeral_digits

_ORDINAL_WORDS = {w: i for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
    "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split(), 1)}
_CENTURY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)[\s-]+centur(?:y|ies)\b|(\d{1,2}|[一二三四五六七八九十]{1,3})\s*世纪"
                      rf"|\b({'|'.join(_ORDINAL_WORDS)})[\s-]+centur(?:y|ies)\b")
_CENTURY_DECADE = re.compile(r"(\d{1,2})\s*世纪\s*(\d0)\s*年代")
_DECADE = re.compile(r"(?<![0-9A-Za-z.])(1\d|20)?(\d0)(?:'s|s)\b|(?<![\d'])['‘’](\d0)s\b|(?<!\d)(\d{2}|\d{4})\s*年代")


def eras(text: str) -> str:
    """Centuries and decades written one way in both languages (lower-case text): "15th century",
    "fifteenth century" and 15世纪 are "15 century"; "1980s", "the '80s", 80年代 and 1980年代 are
    "1980 decade" (a decade of two digits is the twentieth century's)."""
    def century(m: re.Match) -> str:
        written = m.group(1) or m.group(2)
        number = (written if written.isdigit() else numeral_digits(written)) if written else _ORDINAL_WORDS[m.group(3)]
        return f" {number} century "

    def decade(m: re.Match) -> str:
        if m.group(2) is not None:
            return f" {m.group(1) or '19'}{m.group(2)} decade "
        digits = m.group(3) or m.group(4)
        return f" {digits if len(digits) == 4 else '19' + digits} decade "

    # 20世纪70年代: the seventies of the twentieth century, 1970
    text = _CENTURY_DECADE.sub(lambda m: f" {(int(m.group(1)) - 1) * 100 + int(m.group(2))} decade ", text)
    return _DECADE.sub(decade, _CENTURY.sub(century, text))
