"""Step 2: heading glue.

A heading line (``# 标题``, ``第X章``, ``第X节``, ``第X条``, ``1. xxx``, ``1.2 xxx``, ``一、xxx``,
``（一）xxx``) standing alone as a block is joined to the block after it, so the size split
never leaves a heading at the end of a chunk with its text in the next one. Only whitespace
changes: the blank lines after the heading go.
"""

from __future__ import annotations

import re

from core.chunking.fences import code_line_mask

# Numbered forms look like list items; a list item that is a sentence is not a heading.
MAX_HEADING_CHARS = 50
MAX_HEADING_BLOCK_LINES = 3

_CN_NUM = "零〇一二三四五六七八九十百千万两"
_MARKDOWN_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+\S")
_NUMBERED_HEADINGS = (
    re.compile(rf"^第[{_CN_NUM}\d]+[章节条编篇部款]"),
    re.compile(r"^\d{1,3}(?:\.\d{1,3})*(?:[.、．][ \t]*|[ \t]+)(?=\S)"),
    re.compile(rf"^[{_CN_NUM}]+[、．.]\s*(?=\S)"),
    re.compile(rf"^[（(][{_CN_NUM}\d]+[)）]\s*(?=\S)"),
)
# A line ending like a sentence is body text, even when it starts like a heading.
_SENTENCE_END = tuple("。！？；，,;!?.")


def is_heading_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if _MARKDOWN_HEADING.match(line):
        return True
    if len(stripped) > MAX_HEADING_CHARS or stripped.endswith(_SENTENCE_END):
        return False
    return any(p.match(stripped) for p in _NUMBERED_HEADINGS)


def is_heading_block(text: str) -> bool:
    """A block made only of heading lines (a heading, or a chapter line over a section line)."""
    lines = [ln for ln in text.strip().split("\n") if ln.strip()]
    return 0 < len(lines) <= MAX_HEADING_BLOCK_LINES and all(is_heading_line(ln) for ln in lines)


def glue_headings(text: str) -> str:
    """Drop the blank lines between a heading block and the block that follows it."""
    lines = text.split("\n")
    in_code = code_line_mask(lines)
    drop = [False] * len(lines)
    i = 0
    while i < len(lines):
        if in_code[i] or not lines[i].strip():
            i += 1
            continue
        end = i  # the block: consecutive non-blank prose lines
        while end + 1 < len(lines) and lines[end + 1].strip() and not in_code[end + 1]:
            end += 1
        nxt = end + 1
        while nxt < len(lines) and not lines[nxt].strip() and not in_code[nxt]:
            nxt += 1
        if nxt > end + 1 and nxt < len(lines) and is_heading_block("\n".join(lines[i : end + 1])):
            for k in range(end + 1, nxt):
                drop[k] = True
        i = end + 1
    return "\n".join(line for line, gone in zip(lines, drop) if not gone)
