"""Message keys: what the engine says about a file or a job, as a key and its values, stored
beside the English text (file rows, job rows, ingest results). An interface renders the key in
its reader's language; the English text stays for the CLI, the logs and rows older than the keys.

Keys (values in braces): each has an English text here, the one the engine also stores.

Progress is said the same way: a job row holds its step as a key and values beside its counter
(``progress_done`` of ``progress_total``), and an interface words the step and the counter in
its reader's language (never "page 39 of 120 (38/120)" built here)."""

from __future__ import annotations

from dataclasses import dataclass, field

ENGLISH = {
    "parse.pdf_password": "{name} is password-protected; remove the password (or print it to a new PDF) and upload it again",
    "parse.pdf_unreadable": "{name} is not a readable PDF (corrupt or truncated file)",
    "parse.empty_file": "{name} is empty (0 bytes)",
    "parse.old_office": ("{name} is an old binary Office file (.doc/.ppt/.xls) or a password-protected Office file; "
                         "save it as .docx/.pptx/.xlsx without a password. Supported: {supported}"),
    "parse.old_office_as": ("not a valid {label} file (not a zip archive): it is an old binary Office file "
                            "(.doc/.ppt/.xls) or a password-protected one; save it as .{ext} without a password"),
    "parse.unsupported": "unsupported file type for {name} (unrecognised binary content); supported: {supported}",
    "ingest.too_large": ("'{name}' is {size_mb} MB, more than the upload limit of {limit_mb} MB "
                         "(setting parsing.max_upload_mb)"),
    "ingest.too_many_chunks": ("'{name}' makes {n} chunks, more than the limit of {cap} per file "
                               "(setting parsing.max_chunks_per_file): split the file, use larger chunks, or raise the limit"),
    "ingest.too_many_chunks_at_least": ("'{name}' would make at least {n} chunks, more than the limit of {cap} per "
                                        "file (setting parsing.max_chunks_per_file): split the file, use larger "
                                        "chunks, or raise the limit"),
    "ingest.cancelled": "cancelled by request",
    "job.parsing": "parsing {name}",
    "job.embedding": "embedding",
    "job.chunks": "{n} chunks",
    "job.reembedding": "re-embedding {name}",
    "job.reindexing": "reindexing {name}",
    "job.waiting": "waiting for a worker",
    # parsing steps (core/parsers): the counter is the pages (slides, images) read so far
    "pdf.text_layer": "checking the text layer of page {page} of {pages}",
    "pdf.scanned_ahead": "reading the scanned pages",
    "pdf.page": "page {page} of {pages}",
    "pdf.ocr": "page {page} of {pages}: OCR ({reason})",
    "pdf.pictures": "page {page} of {pages}: OCR of the pictures ({n})",
    "pdf.done": "{pages} pages read",
    "image.ocr": "OCR of image {n} of {total}",
    "image.done": "OCR done",
    "pptx.slide": "slide {n} of {total}",
    "pptx.done": "slides done",
    # a sync's steps (core/sources/sync.py): the counter is the changes applied so far
    **{f"sync.{action}": f"{action} {{name}}" for action in
       ("added", "updated", "renamed", "removed", "failed", "cancelled", "duplicate", "skipped")},
}


@dataclass(frozen=True)
class Said:
    """A message as its key, values and English text."""

    key: str
    params: dict = field(default_factory=dict)

    @property
    def text(self) -> str:
        return ENGLISH[self.key].format(**self.params)


def say(key: str, **params) -> Said:
    if key not in ENGLISH:
        raise KeyError(f"unknown message key {key!r}")
    return Said(key, params)
