"""Web pages into a knowledge base: fetched, parsed, indexed — and private addresses refused by default."""

from __future__ import annotations

from contextlib import contextmanager

from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR
from tests.parsers.http_fixtures import local_server

A = SYSTEM_ACTOR
PAGE = """<html><head><meta charset="utf-8"><title>报销指南</title></head><body>
<nav>首页 | 产品 | 联系我们</nav>
<article><h1>报销指南</h1><p>出租车费用须附上发票原件，单次不超过两百元。</p>
<p>Taxi receipts must be original and each ride is capped at 200 yuan.</p></article>
<footer>版权所有</footer></body></html>"""


@contextmanager
def page_server():
    with local_server() as srv:
        srv.serve("/guide.html", PAGE.encode("utf-8"), "text/html; charset=utf-8")
        yield srv.url("/guide.html"), srv.hits


def test_private_address_is_refused_by_default_and_listed_as_failed(engine):
    engine.create_kb(A, "web")
    with page_server() as (url, hits):
        [result] = engine.ingest(A, "web", [Upload.from_url(url)])
    assert result.status == "failed" and hits == []
    assert "127.0.0.1" in result.error or "private" in result.error or "loopback" in result.error
    [listed] = engine.list_files(A, "web")
    assert listed.status == "failed" and listed.error == result.error
    assert engine.delete_files(A, [listed.id])[0].status == "deleted"


def test_allowed_page_is_fetched_cleaned_and_searchable(engine):
    engine.save_settings(A, {"parsing": {"url_allow_hosts": ["127.0.0.1"]}})
    engine.create_kb(A, "web")
    with page_server() as (url, hits):
        [result] = engine.ingest_paths(A, "web", [url])
    assert result.status == "indexed", result.error
    hit = engine.search(A, "出租车费用 发票", ["web"], min_score=0).hits[0]
    assert "两百元" in hit.text and "版权所有" not in hit.text and hit.source_name == url
    assert engine.doctor(A).healthy
    assert engine.reindex(A, "web").status == "done"  # rebuilt from the stored text, no refetch
    assert len(hits) == 1
