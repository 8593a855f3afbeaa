"""What ingest takes in and gives back: an upload, its result, and how a URL upload is fetched.

Its own module so the single-file entry points (service.py) and the batched work (batch.py)
share these types without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from core.parsers.base import ParseContext


@dataclass
class Upload:
    """A file's bytes, or (with ``url``) a web page / PDF URL / YouTube video to fetch."""

    name: str
    data: bytes = b""
    url: str | None = None

    @classmethod
    def from_url(cls, url: str) -> "Upload":
        return cls(name=url, url=url)


@dataclass
class IngestResult:
    name: str
    status: str  # indexed | duplicate | failed | cancelled
    file_id: str | None = None
    chunks: int = 0
    error: str = ""
    job_id: str | None = None
    warnings: list[str] = field(default_factory=list)
    error_key: str = ""  # the error as a message key and its values (core/messages.py)
    error_params: dict = field(default_factory=dict)
    retryable: bool = False  # failed on something passing (a server that cannot be reached now)

    @property
    def ok(self) -> bool:
        return self.status in ("indexed", "duplicate")


FileProgress = Callable[[str, int, int, str], None]  # (file name, done, total, message)


def fetch_url_doc(url: str, settings):
    from core.parsers.url import fetch_url  # lazy: pulls the HTTP and HTML stacks

    return fetch_url(url, ParseContext(settings=settings.parsing))
