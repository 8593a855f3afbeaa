"""Step 1: cleaning.

Removes what carries no meaning for retrieval (HTML tags, Markdown link/emphasis syntax,
comments, control characters, runs of whitespace) and keeps what does: the text inside
tags and links, Markdown headings, lists, pipe tables and fenced code blocks verbatim.
"""

from __future__ import annotations

import html
import re

from core.chunking.fences import code_line_mask

_KEEP_CONTROLS = {"\n", "\t"}
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
# Unicode's control characters (category Cc: C0, DEL and C1, unchanged since Unicode 1.1) but
# newline and tab, dropped with the invisible ones in one translate (a test checks the set)
_CONTROLS = [c for c in (*range(0x00, 0x20), *range(0x7F, 0xA0)) if chr(c) not in _KEEP_CONTROLS]
_DROPPED = {**_INVISIBLE, **dict.fromkeys(_CONTROLS)}
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.S)

# Inline code is protected from every prose rule; private-use characters mark its place.
_INLINE_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")

_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_MDX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.S)
_SCRIPT_STYLE = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I)
_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto):[^<>\s]+)>", re.I)
_LINE_BREAK_TAG = re.compile(r"<br\s*/?>", re.I)
_BLOCK_TAG = re.compile(
    r"</?(?:p|div|section|article|header|footer|table|thead|tbody|tr|ul|ol|li|h[1-6]|blockquote|pre|details|summary)\b[^<>]*>",
    re.I,
)
_ANY_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(?:\s(?:[^<>\"']|\"[^\"]*\"|'[^']*')*)?/?>")

_IMAGE = re.compile(r"!\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+[\"'][^\"']*[\"'])?\)")
_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+[\"'][^\"']*[\"'])?\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s+\S+.*$", re.M)

_STRONG_STAR = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EM_STAR = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
# Underscore emphasis only when it closes before a space or punctuation, so snake_case
# identifiers and __init__.py survive.
_STRONG_UNDER = re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?=[\s,;:!?)\]]|$)", re.M)
_EM_UNDER = re.compile(r"(?<!\w)_(?=[^\s_])(.+?)(?<=[^\s_])_(?=[\s,;:!?)\]]|$)", re.M)
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")

_RULE_LINE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_QUOTE_MARKER = re.compile(r"^ {0,3}(?:>[ \t]?)+")
_ADMONITION = re.compile(r"^ {0,3}:::+[ \t]*[\w-]*[ \t]*")
_MDX_IMPORT = re.compile(r"^(?:import|export)\s.*\bfrom\s+[\"'][^\"']+[\"'];?\s*$")
_SPACE_RUN = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_LIST_OR_HEADING = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#|\|)")


def clean_text(text: str) -> str:
    """Clean one part's text (a page, a slide, a whole Markdown file)."""
    text = _strip_controls(text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _FRONT_MATTER.sub("", text, count=1)
    lines = text.split("\n")
    blocks: list[str] = []
    prose: list[str] = []
    code: list[str] = []
    for line, in_code in zip(lines, code_line_mask(lines)):
        if in_code:
            if prose:
                blocks.append(_clean_prose("\n".join(prose)))
                prose = []
            code.append(line.rstrip())
        else:
            if code:
                blocks.append("\n".join(code))
                code = []
            prose.append(line)
    if prose:
        blocks.append(_clean_prose("\n".join(prose)))
    if code:
        blocks.append("\n".join(code))
    return "\n\n".join(b for b in blocks if b.strip())


def _strip_controls(text: str) -> str:
    return text.translate(_DROPPED)


def _clean_prose(text: str) -> str:
    saved: list[str] = []

    def protect(match: re.Match[str]) -> str:
        saved.append(match.group(0))
        return f"\ue000{len(saved) - 1}\ue001"

    text = _INLINE_CODE.sub(protect, text)
    text = _HTML_COMMENT.sub("", text)
    text = _MDX_COMMENT.sub("", text)
    text = _SCRIPT_STYLE.sub("", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _LINE_BREAK_TAG.sub("\n", text)
    text = _BLOCK_TAG.sub("\n", text)
    text = _ANY_TAG.sub("", text)
    text = html.unescape(text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _LINK_DEFINITION.sub("", text)
    for pattern in (_STRONG_STAR, _STRONG_UNDER, _STRIKE, _EM_STAR, _EM_UNDER):
        text = pattern.sub(r"\1", text)
    text = "\n".join(_clean_lines(text.split("\n")))
    text = _PLACEHOLDER.sub(lambda m: saved[int(m.group(1))], text)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


def _clean_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        line = _QUOTE_MARKER.sub("", line)
        line = _ADMONITION.sub("", line) if line.lstrip().startswith(":::") else line
        if _MDX_IMPORT.match(line):
            line = ""
        indent = len(line) - len(line.lstrip(" \t"))
        body = _SPACE_RUN.sub(" ", line.strip())
        if _SETEXT_UNDERLINE.match(line) and out and out[-1].strip() and not _LIST_OR_HEADING.match(out[-1]):
            # "Title\n=====" is a heading: rewrite it the ATX way so the header split sees it.
            out[-1] = ("# " if body.startswith("=") else "## ") + out[-1].strip()
            continue
        if _RULE_LINE.match(line):
            out.append("")
            continue
        out.append(line[:indent].replace("\t", "    ") + body if body else "")
    return out
