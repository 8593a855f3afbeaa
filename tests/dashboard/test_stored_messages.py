"""Stored messages in the reader's language (issue 18): a file row keeps its error as a message
key with its values beside the English text, and the page says it in Chinese for a Chinese
reader; a row older than the keys (English text only) still shows its text."""

from __future__ import annotations

import pytest

from core.ingest.service import Upload
from core.messages import ENGLISH
from tests.conftest import shared_path
from tests.dashboard.conftest import goto, new_app, sign_up


def _chinese_file_manager(engine):
    """The File Manager in Chinese: its table has each file's error. (AppTest cannot rerun the
    Knowledge Bases page in Chinese: it formats a select box's value without the page's labels.)"""
    at = sign_up(new_app(), "alice")
    at.sidebar.selectbox(key="user_lang").select("zh")
    at.run()
    return goto(at, "files"), engine.actor_for(at.session_state["user_id"])


def _errors(at) -> list[str]:
    frames = [d.value for d in at.dataframe] + [e.value for e in at.get("arrow_data_frame")]
    column = "错误 / 警告"
    table = next(f for f in frames if column in f.columns)
    return [str(e) for e in table[column]]


def test_a_password_protected_pdf_is_explained_in_chinese(engine):
    pdf = shared_path("docs", "unstructured__password.pdf")
    at, alice = _chinese_file_manager(engine)
    kb = engine.create_kb(alice, "合同")
    [result] = engine.ingest(alice, kb.id, [Upload(pdf.name, pdf.read_bytes())])
    assert result.status == "failed" and "is password-protected" in result.error  # English for the CLI and logs
    assert result.error_key == "parse.pdf_password" and result.error_params == {"name": pdf.name}
    at.run()
    [error] = _errors(at)
    assert error.startswith(f"{pdf.name} 设有密码保护") and "password-protected" not in error


def test_an_empty_file_and_an_old_office_file_are_explained_in_chinese_and_old_rows_keep_their_text(engine):
    at, alice = _chinese_file_manager(engine)
    kb = engine.create_kb(alice, "资料")
    engine.ingest(alice, kb.id, [Upload("空.md", b""), Upload("旧.docx", b"\xd0\xcf\x11\xe0" + b"\0" * 600)])
    at.run()
    errors = " | ".join(_errors(at))
    assert "空.md 是空文件（0 字节）" in errors and "不是有效的 Word 文件" in errors, errors
    assert "is empty" not in errors and "not a valid Word file" not in errors
    # a row written before message keys existed: only its English text, shown as it is
    [old] = [f for f in engine.list_files(alice, kb.id) if f.name == "空.md"]
    from core.db.models import FileRecord

    with engine._db.write() as s:
        row = s.get(FileRecord, old.id)
        row.error_key, row.error_params, row.error = None, None, "an old English reason"
        s.add(row)
    at.run()
    assert "an old English reason" in _errors(at)


@pytest.mark.parametrize("key", sorted(ENGLISH))
def test_every_engine_message_key_is_translated_with_the_same_values(key):
    import string

    from dashboard.locales.en import STRINGS as EN
    from dashboard.locales.zh import STRINGS as ZH

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    stored = fields(ENGLISH[key])
    # a job's step may be worded with the job's own counter (issue 36: dashboard/locales/progress_words.py)
    for table in (EN, ZH):
        assert fields(table[f"msg.{key}"]) <= stored | {"done", "total"}, table[f"msg.{key}"]
    if not key.startswith(("job.", "pdf.", "image.", "pptx.", "sync.")):  # what went wrong: said in full, every value
        assert EN[f"msg.{key}"] == ENGLISH[key]
        assert fields(ZH[f"msg.{key}"]) == stored
