"""A real engine (hash embedder, embedded Qdrant, SQLite) wired to the local fake Drive server."""

from __future__ import annotations

import io

import pytest

from core.config import RuntimeConfig
from core.engine import Engine
from core.types import SYSTEM_ACTOR
from tests.fakes.drive_server import FakeDrive

# The fake Drive listens on 127.0.0.1: an admin opens that host to the URL guard, as for any
# private stand-in for Google (the guard refuses loopback otherwise).
OPEN_FAKE_DRIVE = {"url_allow_hosts": ["127.0.0.1"]}
OPEN_FAKE_DRIVE_ENV = {"RAGDESK_PARSING__URL_ALLOW_HOSTS": '["127.0.0.1"]'}  # the same, for a served app or the CLI


@pytest.fixture
def drive():
    with FakeDrive(max_page=2) as server:
        yield server


@pytest.fixture
def engine(tmp_path, monkeypatch, drive):
    for var in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY", "RAGDESK_SECRET_KEY"):
        monkeypatch.delenv(var, raising=False)
    eng = Engine(RuntimeConfig.from_env(tmp_path / "data"))
    eng.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"},
                                     "gdrive": drive.settings(), "parsing": dict(OPEN_FAKE_DRIVE)})
    yield eng
    eng.close()


@pytest.fixture
def alice(engine):
    user = engine.sign_up("alice", "correct horse 1")
    return engine.actor_for(user.id)


@pytest.fixture
def bob(engine, alice):
    user = engine.sign_up("bob", "correct horse 2")
    return engine.actor_for(user.id)


def connect(engine, actor, drive, account: str = "alice") -> dict:
    return engine.gdrive_connect_refresh_token(actor, drive.issue_refresh_token(account))


def pptx_bytes(slides: list[tuple[str, str, str]]) -> bytes:
    """A deck: (title, body, speaker notes) per slide."""
    from pptx import Presentation

    deck = Presentation()
    for title, body, notes in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        slide.notes_slide.notes_text_frame.text = notes
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def xlsx_bytes(sheets: dict[str, list[list]]) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def docx_bytes(paragraphs: list[str]) -> bytes:
    from docx import Document

    doc = Document()
    for p in paragraphs:
        doc.add_paragraph(p)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()
