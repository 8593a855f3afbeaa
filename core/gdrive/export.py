"""How each Drive file becomes bytes the parsers read: Google-native files are exported,
everything else is downloaded as it is."""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import CoreError
from core.gdrive.client import DriveClient
from core.gdrive.errors import ItemNotImportable

DOC = "application/vnd.google-apps.document"
SHEET = "application/vnd.google-apps.spreadsheet"
SLIDES = "application/vnd.google-apps.presentation"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"


@dataclass(frozen=True)
class Export:
    mime: str
    extension: str


# First choice, then fallback. Sheets as xlsx: a CSV export holds only the first sheet.
EXPORTS: dict[str, tuple[Export, ...]] = {
    DOC: (Export("text/markdown", ".md"), Export(DOCX, ".docx")),
    SLIDES: (Export(PPTX, ".pptx"),),
    SHEET: (Export(XLSX, ".xlsx"),),
}
NATIVE_PREFIX = "application/vnd.google-apps."


def importable(mime: str) -> str:
    """"" when a file of this type can be imported, else why not."""
    if mime in EXPORTS or not mime.startswith(NATIVE_PREFIX):
        return ""
    kind = mime[len(NATIVE_PREFIX):]
    return f"Google {kind} files cannot be exported to a document format ragdesk reads"


def file_name(name: str, extension: str) -> str:
    return name if name.lower().endswith(extension) else name + extension


def fetch_content(client: DriveClient, file_id: str, name: str, mime: str) -> tuple[str, bytes]:
    """(file name the parsers see, bytes). Raises ItemNotImportable / DriveError for this file alone."""
    reason = importable(mime)
    if reason:
        raise ItemNotImportable(reason)
    choices = EXPORTS.get(mime)
    if not choices:
        return name, client.download(file_id)
    last: CoreError | None = None
    for choice in choices:
        try:
            return file_name(name, choice.extension), client.export(file_id, choice.mime)
        except ItemNotImportable:
            raise  # too large or not exportable at all: another format will not help
        except CoreError as exc:  # e.g. a Drive without Markdown export: try the next format
            last = exc
    raise last  # type: ignore[misc]
