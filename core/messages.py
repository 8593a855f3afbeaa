"""Message keys: what the engine says about a file or a job, as a key and its values, stored
beside the English text (file rows, job rows, ingest results). An interface renders the key in
its reader's language; the English text stays for the CLI, the logs and rows older than the keys.

Keys (values in braces): each has an English text here, the one the engine also stores."""

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
