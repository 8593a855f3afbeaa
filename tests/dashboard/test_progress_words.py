"""Upload and job progress in the reader's language (issue 36): the engine stores a step as a
message key and its values beside the job's counter; the page words both ("waiting for a
worker", "page 39 of 120 (38/120)" and "page 2 of 120: text layer (0/120)" were English in the
Chinese interface, and said their counter twice or against the text)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import streamlit as st

from core.ingest.service import Upload
from core.messages import say
from core.parsers.base import ParseContext
from core.parsers.registry import parse_bytes
from core.settings.model import ParsingSettings
from dashboard.messages import progress_line
from tests.dashboard.conftest import goto, new_app, sign_up
from tests.parsers.pdf_maker import Page, make_pdf


def _job(key: str | None, done: int, total: int, message: str = "", **params):
    return SimpleNamespace(message_key=key, message_params=params, message=message or (say(key, **params).text if key else ""),
                           progress_done=done, progress_total=total)


@pytest.fixture
def chinese():
    st.session_state["lang"] = "zh"
    yield
    st.session_state["lang"] = "en"


def test_a_pdf_is_parsed_in_steps_the_page_can_word():
    data = make_pdf([Page().text(72, 72, f"Page number {i} text") for i in range(1, 4)])
    steps = []
    parse_bytes(data, "three.pdf", ParseContext(settings=ParsingSettings(ocr_enabled=False),
                                               progress=lambda done, total, step: steps.append((done, total, step))))
    assert (0, 3, say("pdf.text_layer", page=2, pages=3)) in steps
    assert (1, 3, say("pdf.page", page=2, pages=3)) in steps and steps[-1] == (3, 3, say("pdf.done", pages=3))


def test_each_step_is_worded_once_with_its_counter_in_english():
    assert progress_line(_job("pdf.page", 38, 120, page=39, pages=120)) == "reading page 39 of 120"
    assert progress_line(_job("pdf.text_layer", 0, 120, page=107, pages=120)) == "checking the text layer of page 107 of 120"
    assert progress_line(_job("job.embedding", 1, 1)) == "embedding: 1 of 1 chunk"
    assert progress_line(_job("job.waiting", 0, 0)) == "waiting for a worker"
    assert progress_line(_job("sync.added", 3, 9, name="plan.pdf")) == "added plan.pdf (3 of 9)"
    assert progress_line(_job(None, 3, 9, "an older row")) == "an older row (3/9)"  # no key: the counter after it


def test_each_step_is_worded_in_chinese(chinese):
    assert progress_line(_job("pdf.page", 38, 120, page=39, pages=120)) == "正在读取第 39 页，共 120 页"
    assert progress_line(_job("pdf.text_layer", 0, 120, page=2, pages=120)) == "正在检查文字层：第 2 页，共 120 页"
    assert progress_line(_job("job.waiting", 0, 0)) == "等待空闲的处理进程"
    assert progress_line(_job("sync.removed", 1, 2, name="plan.pdf")) == "已移除 plan.pdf（1/2）"
    assert progress_line(_job("pdf.pictures", 3, 9, page=4, pages=9, n=2)) == "第 4 页（共 9 页）：正在用 OCR 识别 2 张图片"


@pytest.fixture
def no_workers(monkeypatch):
    monkeypatch.setenv("RAGDESK_JOBS__DASHBOARD_WORKERS", "0")  # uploads stay queued: nobody takes them


def test_a_queued_upload_waits_in_the_reader_language(no_workers, engine):
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "handbook")
    engine.submit_ingest(actor, kb.id, [Upload("leave.md", b"# Leave\n\nAnnual leave is 15 days.\n")])
    at.sidebar.selectbox(key="user_lang").select("zh")
    at.run()
    at = goto(at, "kbs")
    bars = [p.proto.text for p in at.get("progress")]
    assert "leave.md — 等待空闲的处理进程" in bars, bars
    assert not [b for b in bars if "worker" in b or "(0/" in b], bars
