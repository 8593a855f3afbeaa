"""Two engines in one process (tests, a worker beside an API) on two data folders must not see each
other's state (issue 36 §28). The query-vector cache and the rendered-citation cache were module
globals shared by every engine: an engine whose embedder had the same id as another's
(``openai/<model>`` at another server) got the other's query vectors; the collection prefix was read
from the environment once, at import."""

from __future__ import annotations

import os

import pytest

from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD, make_engine, md
from tests.fakes.embedding_server import fake_embedding_server


@pytest.fixture(autouse=True)
def _embedded(monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY", "RAGDESK_SECRET_KEY"):
        monkeypatch.delenv(var, raising=False)


def _queries(server, text: str) -> int:
    return sum(1 for r in server.embed_requests() if (r.body or {}).get("input") in ([text], text))


def test_two_engines_with_same_named_embedders_do_not_share_query_vectors(tmp_path):
    with fake_embedding_server(scale=1.0) as one, fake_embedding_server(scale=5.0) as other:
        a = make_engine(tmp_path / "a", embedding={"provider": "openai", "base_url": one.openai_url, "model": "fake-embed"})
        b = make_engine(tmp_path / "b", embedding={"provider": "openai", "base_url": other.openai_url, "model": "fake-embed"})
        try:
            for engine in (a, b):
                engine.create_kb(SYSTEM_ACTOR, "kb")
                engine.ingest(SYSTEM_ACTOR, "kb", [md("h.md", HANDBOOK_MD)])
            question = "How many days of annual leave do I get?"
            a.search(SYSTEM_ACTOR, question, ["kb"])
            b.search(SYSTEM_ACTOR, question, ["kb"])
            assert _queries(one, question) == 1
            assert _queries(other, question) == 1  # b asked its own server, not a's cache
            b.search(SYSTEM_ACTOR, question, ["kb"])
            assert _queries(other, question) == 1  # within one engine the cache still works
            assert len(a.runtime.query_vectors) == 1 and len(b.runtime.query_vectors) == 1
        finally:
            a.close()
            b.close()


def test_rendered_citation_pages_stay_in_their_engine(tmp_path):
    from core.ingest.service import Upload
    from tests.parsers.pdf_maker import Page, make_pdf

    pdf = make_pdf([Page().text(72, 100, "Annual leave is fifteen days for every employee.")])
    a, b = make_engine(tmp_path / "a"), make_engine(tmp_path / "b")
    try:
        a.create_kb(SYSTEM_ACTOR, "kb")
        [result] = a.ingest(SYSTEM_ACTOR, "kb", [Upload("policy.pdf", pdf)])
        view = a.citation_view(SYSTEM_ACTOR, result.file_id, "Annual leave is fifteen days", page=1)
        assert view is not None
        assert len(a.runtime.citation_views) == 1 and len(b.runtime.citation_views) == 0
    finally:
        a.close()
        b.close()


def test_the_collection_prefix_is_read_when_an_engine_makes_a_name_not_at_import(tmp_path, monkeypatch):
    import core.vectorstore.base  # noqa: F401  (imported long before the variable is set)

    monkeypatch.setenv("RAGDESK_COLLECTION_PREFIX", "second_install_")
    engine = make_engine(tmp_path / "a")
    try:
        engine.create_kb(SYSTEM_ACTOR, "kb")
        engine.ingest(SYSTEM_ACTOR, "kb", [md("h.md", HANDBOOK_MD)])
        names = engine.runtime.store.list_collections()
        assert names and all(n.startswith("second_install_") for n in names), names
    finally:
        engine.close()


def test_closing_one_engine_keeps_the_others_private_umask(tmp_path):
    before = os.umask(0o022)
    os.umask(before)
    a = make_engine(tmp_path / "a")
    try:
        make_engine(tmp_path / "b").close()
        current = os.umask(0o077)
        os.umask(current)
        assert current & 0o077 == 0o077  # a is still open: what its store creates stays private
    finally:
        a.close()
    after = os.umask(before)
    assert after == before


def test_the_drive_consent_flow_leaves_the_process_environment_alone(tmp_path, monkeypatch):
    """oauthlib refuses plain http unless OAUTHLIB_INSECURE_TRANSPORT is set in the environment; the
    flow set it process-wide while it exchanged a code with a loopback stand-in, so any other engine
    or thread in the process had its OAuth transport check relaxed meanwhile."""
    from urllib.parse import parse_qs, urlsplit

    import requests

    from tests.fakes.drive_server import FakeDrive

    monkeypatch.delenv("OAUTHLIB_INSECURE_TRANSPORT", raising=False)
    with FakeDrive() as drive:
        engine = make_engine(tmp_path / "a", gdrive=drive.settings(), parsing={"url_allow_hosts": ["127.0.0.1"]})
        try:
            alice = engine.actor_for(engine.sign_up("alice", "correct horse 1").id)
            url = engine.gdrive_auth_url(alice)
            assert url.startswith(drive.settings()["oauth_auth_url"])  # its own http scheme, on loopback
            answer = requests.get(url, allow_redirects=False, timeout=10)
            back = {k: v[0] for k, v in parse_qs(urlsplit(answer.headers["Location"]).query).items()}
            assert engine.gdrive_finish_auth(alice, back["code"], back["state"])["connected"]
        finally:
            engine.close()
    assert drive.insecure_transport_env and set(drive.insecure_transport_env) == {None}
    assert "OAUTHLIB_INSECURE_TRANSPORT" not in os.environ
