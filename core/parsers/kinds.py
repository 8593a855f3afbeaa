"""The built-in document kinds: their names, the extensions that hint at them and their labels.

A leaf table: content sniffing (``detect.py``) and the format registry (``formats.py``) both read it,
so neither has to import the other for it.
"""

from __future__ import annotations

KINDS = ("pdf", "docx", "pptx", "xlsx", "csv", "image", "html", "markdown", "text")

# Extensions offered by upload widgets, grouped by the kind they usually hold.
EXTENSIONS_BY_KIND: dict[str, tuple[str, ...]] = {
    "pdf": ("pdf",),
    "docx": ("docx",),
    "pptx": ("pptx",),
    "xlsx": ("xlsx", "xlsm"),
    "csv": ("csv", "tsv"),
    "image": ("png", "jpg", "jpeg", "webp", "bmp", "tif", "tiff", "gif"),
    "html": ("html", "htm", "xhtml"),
    "markdown": ("md", "markdown", "mdx"),
    "text": ("txt", "text", "log", "rst", "json", "xml", "yaml", "yml"),
}
SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(e for exts in EXTENSIONS_BY_KIND.values() for e in exts)
KIND_OF_EXTENSION = {e: k for k, exts in EXTENSIONS_BY_KIND.items() for e in exts}

KIND_LABELS = {
    "pdf": "PDF",
    "docx": "Word (.docx)",
    "pptx": "PowerPoint (.pptx)",
    "xlsx": "Excel (.xlsx)",
    "csv": "CSV",
    "image": "image",
    "html": "HTML",
    "markdown": "Markdown",
    "text": "plain text",
}
SUPPORTED_DESCRIPTION = (
    "PDF, Word (.docx), PowerPoint (.pptx), Excel (.xlsx), CSV, images (PNG, JPEG, WebP, BMP, TIFF, GIF), "
    "HTML, Markdown and plain text"
)
