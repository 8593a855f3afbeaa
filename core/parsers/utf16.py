"""UTF-16 text written without a byte-order mark (some Windows and Java tools, mail exports): its
Latin letters leave a NUL beside every byte, so it looks binary until read as UTF-16."""

from __future__ import annotations

_SAMPLE = 4096


def bomless_utf16(data: bytes) -> str | None:
    """"utf-16-le" or "utf-16-be" when ``data`` reads as UTF-16 text of that byte order, else None."""
    sample = data[:_SAMPLE]
    sample = sample[: len(sample) // 2 * 2]
    pairs = len(sample) // 2
    if pairs < 2 or b"\x00" not in sample:
        return None
    high_nul, low_nul = sample[1::2].count(0), sample[0::2].count(0)
    if high_nul >= pairs * 0.3 and low_nul <= pairs * 0.02:
        encoding = "utf-16-le"
    elif low_nul >= pairs * 0.3 and high_nul <= pairs * 0.02:
        encoding = "utf-16-be"
    else:
        return None
    text = sample.decode(encoding, errors="replace")
    if len(data) > _SAMPLE:  # the window may cut a surrogate pair in two
        text = text[:-1]
    readable = sum(ch.isprintable() or ch in "\n\r\t\f" for ch in text if ch != "\ufffd")
    return encoding if readable >= len(text) * 0.95 else None
