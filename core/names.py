"""Names people give things (knowledge bases, files, users): one validator, used everywhere.

Why: a name is how one user points at another's thing (``#handbook``, sharing with ``alice``).
A name that *looks* like another — a right-to-left override flipping its end, a zero-width
space, a Cyrillic "а" for a Latin "a", a full-width "ａ" — lets an impostor be picked. So:
- every name is NFC-normalised, trimmed, and refused when it holds control characters,
  format characters (bidi overrides and isolates, zero-width characters), line separators,
  private-use or unassigned code points, or lone surrogates (a file name that was not UTF-8);
- user names are compared by ``user_name_key``: NFKC, case-folded, with Cyrillic and Greek
  letters that look Latin mapped to their Latin twin, so "Аlice" (Cyrillic А) and "ＡＬＩＣＥ"
  are the same name as "alice"; a user name mixing Latin with Cyrillic or Greek is refused.
  ``core/accounts/users.py`` uses these for sign-up, single sign-on and every look-up by name.
``printable`` escapes what a terminal would interpret (escape sequences, bidi controls).
"""

from __future__ import annotations

import unicodedata

from core.errors import InvalidInput

_REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs"}
_CATEGORY_WORDS = {"Cc": "a control character", "Cf": "an invisible formatting character (bidi or zero-width)",
                   "Zl": "a line separator", "Zp": "a paragraph separator", "Co": "a private-use character",
                   "Cn": "an unassigned character", "Cs": "bytes that are not valid UTF-8"}

# Cyrillic and Greek letters drawn like a Latin one (lower case; names are case-folded first).
_LOOKALIKES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "һ": "h", "ӏ": "l", "ɡ": "g",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "ω": "w",
})


def clean_name(name: str, what: str, max_chars: int = 200) -> str:
    """``name`` NFC-normalised and trimmed; InvalidInput naming the problem when it is unsafe."""
    text = unicodedata.normalize("NFC", (name or "").strip()) if _encodable(name) else name or ""
    if not text.strip():
        raise InvalidInput(f"a {what} needs a name")
    for ch in text:
        category = unicodedata.category(ch)
        if category in _REFUSED_CATEGORIES:
            raise InvalidInput(f"the {what} name '{printable(text)}' contains {_CATEGORY_WORDS[category]} "
                               f"(U+{ord(ch):04X}); use visible characters only")
    if len(text) > max_chars:
        raise InvalidInput(f"a {what} name is at most {max_chars} characters")
    return text


def clean_text(text: str, what: str, max_chars: int) -> str:
    """A free text people read beside a name (a description): NFC, trimmed, at most ``max_chars``,
    and held to the name rules except that line breaks and tabs are allowed."""
    text = unicodedata.normalize("NFC", (text or "").strip()) if _encodable(text) else text or ""
    if len(text) > max_chars:
        raise InvalidInput(f"a {what} is at most {max_chars} characters (this one has {len(text)})")
    for ch in text:
        category = unicodedata.category(ch)
        if category in _REFUSED_CATEGORIES and ch not in "\n\t":
            raise InvalidInput(f"the {what} contains {_CATEGORY_WORDS[category]} (U+{ord(ch):04X}); "
                               "use visible characters only")
    return text


def _encodable(text: str | None) -> bool:
    try:
        (text or "").encode("utf-8")
        return True
    except UnicodeEncodeError:  # lone surrogates: os.fsdecode of bytes that were not UTF-8
        return False


def _scripts(text: str) -> set[str]:
    found = set()
    for ch in text:
        if ch.isalpha():
            script = unicodedata.name(ch, "").split(" ", 1)[0]
            if script in ("LATIN", "CYRILLIC", "GREEK"):
                found.add(script)
    return found


def clean_user_name(name: str) -> str:
    """A user name as stored: 2-64 characters without spaces (it is typed to share, sign in and in
    the CLI); refuses names that mix Latin with Cyrillic or Greek letters."""
    text = clean_name(name, "user", max_chars=64)
    if len(text) < 2:
        raise InvalidInput("a user name has at least 2 characters")
    if any(ch.isspace() for ch in text):
        raise InvalidInput(f"the user name '{printable(text)}' contains a space; use one word (e.g. . _ - to join)")
    scripts = _scripts(unicodedata.normalize("NFKC", text))
    if "LATIN" in scripts and scripts & {"CYRILLIC", "GREEK"}:
        raise InvalidInput(f"the user name '{printable(text)}' mixes Latin and {'/'.join(sorted(scripts - {'LATIN'})).title()} "
                           "letters, which look alike; use one alphabet")
    return text


def user_name_key(name: str) -> str:
    """What two user names are compared by: NFKC, case-folded, look-alike letters made Latin."""
    return unicodedata.normalize("NFKC", name).casefold().translate(_LOOKALIKES)


def file_display_name(raw: str) -> str:
    """A file name safe to show and store even when it is not valid UTF-8 (for error rows)."""
    if _encodable(raw):
        return printable(raw)
    return printable(raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


def printable(text: str) -> str:
    """``text`` with control and invisible formatting characters shown as \\uXXXX (newline and tab kept)."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch in "\n\t" or unicodedata.category(ch) not in _REFUSED_CATEGORIES:
            out.append(ch)
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
    return "".join(out)
