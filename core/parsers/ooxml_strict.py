"""Office files saved as "Strict Open XML" (Excel's and Word's save-as option, ISO/IEC 29500
Strict) name their XML with purl.oclc.org namespaces that openpyxl, python-docx and python-pptx do
not know: they read such a file as empty. The parts are rewritten to the transitional namespaces
they mirror (the element names are the same), once, in memory, after the zip's limits are checked."""

from __future__ import annotations

import io
import re
import zipfile

_STRICT = b"http://purl.oclc.org/ooxml/"
# purl.oclc.org/ooxml/<family>/<name> is schemas.openxmlformats.org/<family>/2006/<name>, but for the
# document-properties relationship names, which changed spelling
_PROPERTIES = {b"extendedProperties": b"extended-properties", b"customProperties": b"custom-properties"}
_NAMESPACE = re.compile(rb"http://purl\.oclc\.org/ooxml/([A-Za-z]+)/([A-Za-z]+)")


def _transitional(match: re.Match) -> bytes:
    family, name = match.group(1), match.group(2)
    if family == b"officeDocument" and name in _PROPERTIES:
        name = _PROPERTIES[name]
    return b"http://schemas.openxmlformats.org/" + family + b"/2006/" + name


def as_transitional(data: bytes, archive: zipfile.ZipFile) -> tuple[bytes, zipfile.ZipFile]:
    """``data`` and its archive as they are, or rewritten when the package is Strict."""
    try:
        root_rels = archive.read("_rels/.rels")
    except KeyError:
        return data, archive
    if _STRICT not in root_rels:
        return data, archive
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as rewritten:
        for info in archive.infolist():
            body = archive.read(info)
            if info.filename.endswith((".xml", ".rels")):
                body = _NAMESPACE.sub(_transitional, body)
            rewritten.writestr(info.filename, body)
    converted = out.getvalue()
    return converted, zipfile.ZipFile(io.BytesIO(converted))
