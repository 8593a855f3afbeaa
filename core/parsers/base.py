"""The parser protocol and its context.

A parser turns bytes into a ``ParsedDoc`` (Markdown-ish text in parts with page / slide /
timestamp / heading metadata) or raises a ``ParseError`` subclass with a message an admin
can act on. Parsers never index anything: ingestion does that after a parse fully succeeds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from core.messages import Said
from core.settings.model import ChunkingSettings, ParsingSettings
from core.types import ParsedDoc


@dataclass
class ParseContext:
    settings: ParsingSettings = field(default_factory=ParsingSettings)
    # Called with (done, total, step) during long work such as OCR; may raise Cancelled. The step
    # is a message key and its values (core/messages.py): an interface words it for its reader.
    progress: Callable[[int, int, Said], None] = lambda done, total, step: None
    # The chunking the text is for: with parsing.max_chunks_per_file it sets how much text a file
    # may yield before it is refused (core/parsers/budget.py); None = the default chunking.
    chunking: ChunkingSettings | None = None


class Parser(Protocol):
    name: str  # e.g. "pdf", "docx", "markdown"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc: ...
