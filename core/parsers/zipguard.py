"""Refuse docx/pptx archives that are not zips or would expand into a zip bomb.

Checked from the central directory before python-docx / python-pptx open the file, so a
bomb is refused without inflating a single byte of it.
"""

from __future__ import annotations

import io
import zipfile
from typing import Callable, TypeVar

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.ooxml_strict import as_transitional

_MB = 1024 * 1024


def check_office_zip(data: bytes, kind: str, ctx: ParseContext) -> zipfile.ZipFile:
    """Open ``data`` as a zip and check its limits; ``kind`` is "Word" or "PowerPoint".

    Returns the opened archive (callers may ignore it). Raises ``ParseError``.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise ParseError(
            f"not a valid {kind} file (not a zip archive)", detail=f"{type(exc).__name__}: {exc}"
        ) from exc
    members = archive.infolist()
    max_members = ctx.settings.zip_max_members
    if len(members) > max_members:
        raise ParseError(
            f"{kind} file refused: it holds {len(members)} archive members, more than the limit of "
            f"{max_members} (possible zip bomb)"
        )
    # file_size is what the central directory declares; the inflater never writes more
    # than that for a member (zipfile checks it), so the declared total is the bound.
    total = sum(info.file_size for info in members)
    limit = ctx.settings.zip_max_uncompressed_mb * _MB
    if total > limit:
        raise ParseError(
            f"{kind} file refused: it would expand to {total / _MB:.0f} MB, more than the limit of "
            f"{ctx.settings.zip_max_uncompressed_mb} MB (possible zip bomb)"
        )
    return archive


_Doc = TypeVar("_Doc")


def open_office(data: bytes, kind: str, ctx: ParseContext, opener: Callable[[io.BytesIO], _Doc], what: str,
                source_name: str = "") -> _Doc:
    """Check the zip and stream its XML against the text and element budgets (core/parsers/budget.py),
    then open it with python-docx/python-pptx, turning their errors into ParseError.

    ``kind`` is "Word" or "PowerPoint"; ``what`` names the part that must be inside ("Word document").
    """
    from docx.opc.exceptions import PackageNotFoundError as DocxPackageNotFound
    from pptx.exc import PackageNotFoundError as PptxPackageNotFound

    from core.parsers.budget import scan_office_xml

    archive = check_office_zip(data, kind, ctx)
    scan_office_xml(archive, kind, source_name or f"this {kind} file", ctx)
    data, _ = as_transitional(data, archive)
    try:
        return opener(io.BytesIO(data))
    except (DocxPackageNotFound, PptxPackageNotFound, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise ParseError(f"not a valid {kind} file (the archive has no readable {what} inside)",
                         detail=f"{type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # lxml raises its own family on broken XML
        if type(exc).__module__.startswith("lxml"):
            if "Excessive depth" in str(exc):
                raise ParseError(f"this {kind} file nests its content (tables in tables) too deeply to be read",
                                 detail=str(exc)) from exc
            raise ParseError(f"corrupt {kind} file (its XML cannot be read)", detail=str(exc)) from exc
        raise
