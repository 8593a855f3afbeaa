"""The upload limit as one object (``parsing.max_upload_mb``): read once per request or job from
its settings snapshot and handed down; the one message for a file over it."""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import FileTooLarge
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
