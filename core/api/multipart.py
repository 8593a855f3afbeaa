"""A multipart/form-data upload read as it streams: each file part goes straight to a private
staged file (``staging.py``) and the byte counts are checked as the bytes arrive, so an oversized
upload is refused (413) before the rest of its body is read — never buffered in memory or in a
temporary folder of someone else's choosing.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import AsyncIterator
from pathlib import Path

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, MultipartState, parse_options_header

from core.ingest.staging import new_staged_file, remove_staged
from core.errors import InvalidInput
from core.upload_limits import UploadLimits

FILE_FIELD = "files"
_MAX_NAME = 255


class _Parts:
    """python-multipart callbacks writing the parts named ``files`` to staged files."""

    def __init__(self, data_dir: Path, limits: UploadLimits):
        self.data_dir, self.limits = data_dir, limits
        self.staged: list[tuple[str, Path]] = []
        self._header_field = b""
        self._header_value = b""
        self._headers: dict[bytes, bytes] = {}
        self._fd: int | None = None
        self._size = 0
        self._name = ""

    def callbacks(self) -> dict:
        return {"on_part_begin": self._begin, "on_header_field": self._field, "on_header_value": self._value,
                "on_header_end": self._header_end, "on_headers_finished": self._headers_done,
                "on_part_data": self._data, "on_part_end": self._end}

    def _begin(self) -> None:
        self._headers, self._fd, self._size = {}, None, 0

    def _field(self, data: bytes, start: int, end: int) -> None:
        self._header_field += data[start:end]

    def _value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def _header_end(self) -> None:
        self._headers[self._header_field.lower()] = self._header_value
        self._header_field, self._header_value = b"", b""

    def _headers_done(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        if options.get(b"name", b"").decode("utf-8", "replace") != FILE_FIELD or b"filename" not in options:
            raise InvalidInput(f"unexpected form field: send the files as multipart field '{FILE_FIELD}'")
        if len(self.staged) >= self.limits.max_files:
            raise InvalidInput(f"at most {self.limits.max_files} files per upload")
        self._name = _file_name(options[b"filename"])
        path, self._fd = new_staged_file(self.data_dir)
        self.staged.append((self._name, path))

    def _data(self, data: bytes, start: int, end: int) -> None:
        self._size += end - start
        if self._size > self.limits.max_file_bytes:
            raise self.limits.streamed_too_large(self._name)
        os.write(self._fd, data[start:end])

    def _end(self) -> None:
        self.close_current()

    def close_current(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _file_name(raw: bytes) -> str:
    """The part's own base name (no folders), NFC, with no control characters."""
    name = unicodedata.normalize("NFC", raw.decode("utf-8", "replace")).replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C").strip()
    if not name:
        raise InvalidInput("an uploaded file has no name")
    return name[:_MAX_NAME]


async def stage_upload(content_type: str, body: AsyncIterator[bytes], data_dir: Path,
                       limits: UploadLimits) -> list[tuple[str, Path]]:
    """(name, staged path) of each file part; on any error every staged file is removed first.
    A body that ends before its closing boundary (cut off, or never finished) is refused: its
    last file would otherwise be indexed cut short."""
    kind, options = parse_options_header(content_type or "")
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise InvalidInput(f"send the files as multipart/form-data (field '{FILE_FIELD}')")
    parts = _Parts(data_dir, limits)
    parser = MultipartParser(boundary, parts.callbacks())
    try:
        async for chunk in body:
            parser.write(chunk)
        parser.finalize()  # checks nothing (python-multipart 0.0.x): the state is checked here
        if parser.state is not MultipartState.END:
            raise MultipartParseError("the body ended before its closing boundary")
    except BaseException as exc:
        parts.close_current()
        remove_staged([path for _, path in parts.staged])
        if isinstance(exc, MultipartParseError):
            raise InvalidInput("the multipart body is malformed or incomplete (it must end with its closing "
                               "boundary)") from None
        raise
    parts.close_current()
    return parts.staged
