"""One upload limit, said one way: a file over ``parsing.max_upload_mb`` is refused with the same
words and message key whether it is uploaded, named on the server's disk (the CLI) or parsed."""

from __future__ import annotations

import pytest

from core.errors import FileTooLarge
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR as A


def test_the_same_refusal_everywhere(engine, tmp_path):
    engine.save_settings(A, {"parsing": {"max_upload_mb": 1}})
    engine.create_kb(A, "kb")
    data = b"# big\n\n" + b"word " * 500_000  # 2.5 MB
    path = tmp_path / "big.md"
    path.write_bytes(data)
    [uploaded] = engine.ingest(A, "kb", [Upload("big.md", data)])
    [named] = engine.ingest_paths(A, "kb", [str(path)])
    with pytest.raises(FileTooLarge) as parsed:
        engine.parse(data, "big.md")
    expected = "'big.md' is 2.4 MB, more than the upload limit of 1 MB (setting parsing.max_upload_mb)"
    assert uploaded.error == named.error == parsed.value.message == expected
    assert uploaded.error_key == named.error_key == parsed.value.key == "ingest.too_large"
    assert engine.list_files(A, "kb")[0].status == "failed" and len(engine.list_files(A, "kb")) == 1
