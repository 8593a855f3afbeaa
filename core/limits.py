"""Caps on what one request may cost, checked at the engine before any work is done.

A 1M-character question cost a minute of CPU; a message with 40 URL mentions made 40 fetches.
Each cap is a setting with a default that real use stays well under, and a refusal names it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.errors import FileTooLarge, InvalidInput
from core.messages import say
from core.settings.model import ParsingSettings, Settings

MB = 1024 * 1024
MAX_FILES_PER_UPLOAD = 20  # files one HTTP upload may carry


@dataclass(frozen=True)
class UploadLimits:
    """The upload limit (``parsing.max_upload_mb``, the one limit for knowledge-base files, chat
    attachments, A/B batch files, Drive imports and URL adds), read once per request or job from
    its settings snapshot and handed down, instead of each layer reading the settings again (each
    read a database query) and saying it in its own words."""

    max_upload_mb: int
    max_files: int = MAX_FILES_PER_UPLOAD

    @classmethod
    def of(cls, settings: Settings | ParsingSettings) -> "UploadLimits":
        parsing = settings.parsing if isinstance(settings, Settings) else settings
        return cls(int(parsing.max_upload_mb))

    @property
    def max_file_bytes(self) -> int:
        return self.max_upload_mb * MB

    def too_large(self, name: str, size: int) -> FileTooLarge | None:
        """Why a file of ``size`` bytes is refused (None when it is not): the one message."""
        if size <= self.max_file_bytes:
            return None
        return FileTooLarge.of(say("ingest.too_large", name=name, size_mb=f"{size / MB:.1f}",
                                   limit_mb=self.max_upload_mb))

    def streamed_too_large(self, name: str) -> FileTooLarge:
        """A file refused while it streams in, its whole size unknown (it passed the limit)."""
        return FileTooLarge(f"'{name}' is larger than the upload limit of {self.max_upload_mb} MB "
                            "(setting parsing.max_upload_mb)")

    @property
    def max_request_bytes(self) -> int:
        """The largest upload request: its files at the limit each, and the multipart framing."""
        return self.max_file_bytes * self.max_files + MB

    def check(self, name: str, size: int) -> None:
        refused = self.too_large(name, size)
        if refused is not None:
            raise refused

    def as_dict(self) -> dict:
        return {"max_upload_mb": self.max_upload_mb, "max_files_per_upload": self.max_files}

    @classmethod
    def from_dict(cls, data: dict) -> "UploadLimits":
        return cls(int(data["max_upload_mb"]), int(data["max_files_per_upload"]))


def check_question(question: str, settings: Settings) -> None:
    cap = settings.answering.max_question_chars
    if len(question or "") > cap:
        raise InvalidInput(f"the question is {len(question)} characters long; the limit is {cap} "
                           "(setting answering.max_question_chars)")
    from core.answering.references import count_url_references

    urls, url_cap = count_url_references(question or ""), settings.answering.max_url_mentions
    if urls > url_cap:
        raise InvalidInput(f"the message mentions {urls} URLs; at most {url_cap} are fetched per message "
                           "(setting answering.max_url_mentions)")


def check_search(query: str, top_k: int | None, min_score: float | None, settings: Settings) -> None:
    check_search_parameters(query, top_k, min_score)
    cap = settings.answering.max_question_chars
    if len(query) > cap:
        raise InvalidInput(f"the search query is {len(query)} characters long; the limit is {cap} "
                           "(setting answering.max_question_chars)")


def check_search_parameters(query: str, top_k: int | None, min_score: float | None) -> None:
    """What needs no settings to judge (the CLI checks it before opening anything)."""
    if not (query or "").strip():
        raise InvalidInput("the search query is empty")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= 1000):
        raise InvalidInput(f"top_k must be a whole number from 1 to 1000, not {top_k!r}")
    if min_score is not None and (not isinstance(min_score, (int, float)) or isinstance(min_score, bool)
                                  or not math.isfinite(min_score) or not 0 <= min_score <= 1):
        raise InvalidInput(f"min_score must be a number from 0 to 1, not {min_score!r}")
