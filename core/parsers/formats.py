"""The document-format plugin type, and ragdesk's own formats registered as plugins.

A format is a kind name, the file extensions that hint at it, where its parser lives (a
``"module:ATTRIBUTE"`` imported on first use, so OCR and office libraries load only when a file
needs them) and, for formats added as plugins, a content check. Built-in kinds are recognised
by the content sniffing in ``detect.py``; a plugin format is picked for a file whose extension
it claims (and whose bytes pass its ``sniff``, when it has one).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from core.parsers.base import Parser
from core.parsers.kinds import EXTENSIONS_BY_KIND, KIND_LABELS
from core.plugins import FORMATS


@dataclass(frozen=True)
class DocumentFormat:
    kind: str
    extensions: tuple[str, ...]
    parser: str | Parser  # "module:ATTRIBUTE" (imported lazily) or the parser object
    mime: str
    label: str = ""
    settings: type | None = None  # its sub-model, at parsing.formats.<kind>
    sniff: Callable[[bytes], bool] | None = None  # plugin formats: do these bytes belong to it?
    builtin: bool = False  # recognised by detect.py's content sniffing

    def load(self) -> Parser:
        if not isinstance(self.parser, str):
            return self.parser
        module, _, attribute = self.parser.partition(":")
        return getattr(importlib.import_module(module), attribute)


def register_format(fmt: DocumentFormat) -> DocumentFormat:
    return FORMATS.register(fmt.kind, fmt)


def plugin_format_for(extension: str, data: bytes) -> DocumentFormat | None:
    """The plugin format claiming this extension whose content check passes (None: built-in sniffing)."""
    for fmt in (f for _, f in FORMATS.items()):
        if not fmt.builtin and extension in fmt.extensions and (fmt.sniff is None or fmt.sniff(data)):
            return fmt
    return None


_BUILTIN = {
    "pdf": ("core.parsers.pdf:PARSER", "application/pdf"),
    "image": ("core.parsers.image:PARSER", "image/*"),
    "markdown": ("core.parsers.text:PARSER", "text/markdown"),
    "text": ("core.parsers.text:PLAIN_PARSER", "text/plain"),
    "docx": ("core.parsers.docx:PARSER", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    "pptx": ("core.parsers.pptx:PARSER", "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
    "xlsx": ("core.parsers.spreadsheet:XLSX_PARSER", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    "csv": ("core.parsers.spreadsheet:CSV_PARSER", "text/csv"),
    "html": ("core.parsers.html:PARSER", "text/html"),
}
for _kind, (_where, _mime) in _BUILTIN.items():
    register_format(DocumentFormat(_kind, EXTENSIONS_BY_KIND[_kind], _where, _mime, KIND_LABELS[_kind], builtin=True))
