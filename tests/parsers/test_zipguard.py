import io
import zipfile

import pytest

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.docx import PARSER as DOCX
from core.parsers.pptx import PARSER as PPTX
from core.parsers.zipguard import check_office_zip
from core.settings.model import ParsingSettings


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_not_a_zip_is_refused_with_the_kind_named():
    with pytest.raises(ParseError, match=r"not a valid Word file \(not a zip archive\)"):
        DOCX.parse(b"%PDF-1.4 this is a pdf pretending to be docx", "x.docx", ParseContext())
    with pytest.raises(ParseError, match=r"not a valid PowerPoint file \(not a zip archive\)"):
        PPTX.parse(b"hello", "x.pptx", ParseContext())


def test_too_many_members_is_refused_before_opening():
    bomb = _zip({f"word/junk{i}.xml": b"<a/>" for i in range(50)})
    ctx = ParseContext(settings=ParsingSettings(zip_max_members=20))
    with pytest.raises(ParseError, match="50 archive members.*limit of 20.*zip bomb"):
        DOCX.parse(bomb, "bomb.docx", ctx)
    check_office_zip(bomb, "Word", ParseContext(settings=ParsingSettings(zip_max_members=50)))


def test_huge_declared_size_is_refused():
    # 3 MB of zeros deflates to a few KB: the classic bomb shape, scaled down
    bomb = _zip({"ppt/slides/slide1.xml": b"\0" * (3 * 1024 * 1024)})
    assert len(bomb) < 50_000
    ctx = ParseContext(settings=ParsingSettings(zip_max_uncompressed_mb=2))
    with pytest.raises(ParseError, match="expand to 3 MB.*limit of 2 MB"):
        PPTX.parse(bomb, "bomb.pptx", ctx)
    # the same archive is within a 4 MB limit, then fails for what it is: no presentation inside
    with pytest.raises(ParseError, match="not a valid PowerPoint file"):
        PPTX.parse(bomb, "bomb.pptx", ParseContext(settings=ParsingSettings(zip_max_uncompressed_mb=4)))


def test_zip_without_a_word_document_fails_clearly():
    with pytest.raises(ParseError, match="not a valid Word file"):
        DOCX.parse(_zip({"hello.txt": b"hi"}), "empty.docx", ParseContext())
