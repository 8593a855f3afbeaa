"""Chunking: clean -> heading glue -> Markdown header split -> size/overlap split -> min-size merge."""

from core.chunking.pipeline import chunk_document, cleaned_text

__all__ = ["chunk_document", "cleaned_text"]
