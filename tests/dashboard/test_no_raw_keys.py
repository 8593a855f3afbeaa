"""No page shows a raw message key, in either language (issue 36: ``settings.about.curated``
showed under Curated answers on Documents Settings). Every element's whole description — text,
labels, options, help, placeholders — is searched for a key of the locale dictionaries."""

from __future__ import annotations

import re

import pytest
from google.protobuf.json_format import MessageToDict

from core.ingest.service import Upload
from dashboard.locales.en import STRINGS as EN
from tests.dashboard.conftest import goto, new_app, sign_up

PREFIXES = sorted({key.split(".")[0] for key in EN}, key=len, reverse=True)
RAW_KEY = re.compile(r"\b(?:%s)\.[a-z_]+(?:\.[a-z_+\-]+)*\b" % "|".join(map(re.escape, PREFIXES)))
# names that look like keys but are the product's own words: settings paths an admin types,
# environment overrides and file names
ALLOWED = re.compile(r"^(?:parsing\.max_upload_mb|parsing\.max_chunks_per_file|web_search\.enable_web_search|"
                     r"strict\.compare_roles|jobs\.dashboard_workers)$")


def _elements(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _elements(child)


def _words(value) -> list[str]:
    """Every string of a described element but its ids (a widget's key holds settings paths)."""
    if isinstance(value, dict):
        return [w for k, v in value.items() if k not in ("id", "formId", "fragmentId") for w in _words(v)]
    if isinstance(value, list):
        return [w for v in value for w in _words(v)]
    return [value] if isinstance(value, str) else []


def raw_keys(at) -> set[str]:
    found = set()
    for root in (at.main, at.sidebar):
        for element in _elements(root):
            proto = getattr(element, "proto", None)
            if proto is None or not hasattr(proto, "DESCRIPTOR"):
                continue
            for text in _words(MessageToDict(proto)):
                found |= {m.group(0) for m in RAW_KEY.finditer(text) if not ALLOWED.match(m.group(0))}
    return found


@pytest.mark.parametrize("language", ["en", "zh"])
def test_no_page_shows_a_message_key(engine, language):
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "handbook")
    engine.ingest(actor, kb.id, [Upload("leave.md", b"# Leave\n\n## Annual leave\n\nAnnual leave is 15 days.\n")])
    at.sidebar.selectbox(key="user_lang").select(language)
    at.run()
    shown = {}
    for page in ("chat", "kbs", "files", "settings", "ab"):
        goto(at, page)
        shown[page] = raw_keys(at)
    assert {page: keys for page, keys in shown.items() if keys} == {}
