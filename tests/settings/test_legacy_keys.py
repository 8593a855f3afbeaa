"""Settings saved by the release before plugin sub-models (flat web_search keys, encrypted) still
load; the documented environment names and the CLI's flat keys still set the same fields."""

from __future__ import annotations

import pytest
from sqlmodel import select

from core.db import models
from core.db.database import Database, sqlite_url
from core.secrets.box import SecretBox
from core.settings.store import (
    SECRET_MASK,
    SettingsStore,
    mask_secret_fields,
    masked,
)


@pytest.fixture
def db(tmp_path):
    database = Database(sqlite_url(tmp_path / "s.db"))
    yield database
    database.dispose()


def _old_release_row(db, box: SecretBox) -> None:
    # what today's release wrote: flat keys, the secret encrypted at its flat place
    old = {"web_search": {"web_search_engine": "tavily", "tavily_api_key": "tvly-old-secret",
                          "tavily_base_url": "http://tavily.internal", "searxng_query_url": "http://sx/search?q=<query>"}}
    sealed = box.encrypt("tvly-old-secret")
    old["web_search"]["tavily_api_key"] = sealed
    with db.write() as s:
        s.add(models.SettingsVersion(version=1, data=old))


def test_a_row_saved_with_flat_engine_keys_loads_into_the_engine_sub_models(db, tmp_path):
    box = SecretBox.for_data_dir(tmp_path)
    _old_release_row(db, box)
    store = SettingsStore(db, environ={}, box=box)
    web = store.current().web_search
    assert web.web_search_engine == "tavily"
    assert web.engines["tavily"].api_key.get_secret_value() == "tvly-old-secret"
    assert web.engines["tavily"].base_url == "http://tavily.internal"
    assert web.engines["searxng"].query_url == "http://sx/search?q=<query>"
    assert masked(store.current())["web_search"]["engines"]["tavily"]["api_key"] == SECRET_MASK
    # the next save writes today's layout, the secret still encrypted
    store.save({"web_search": {"web_search_result_count": 5}})
    with db.read() as s:
        latest = s.exec(select(models.SettingsVersion).order_by(models.SettingsVersion.version.desc())).first().data
    assert "tavily_api_key" not in latest["web_search"]
    sealed = latest["web_search"]["engines"]["tavily"]["api_key"]
    assert sealed != "tvly-old-secret" and box.decrypt(sealed) == "tvly-old-secret"
    assert store.current().web_search.engines["tavily"].api_key.get_secret_value() == "tvly-old-secret"


def test_a_flat_key_in_a_patch_still_saves_and_a_masked_one_keeps_the_secret(db):
    store = SettingsStore(db, environ={})
    store.save({"web_search": {"brave_search_api_key": "brave-1", "brave_base_url": "http://brave.local"}})
    assert store.current().web_search.engines["brave"].api_key.get_secret_value() == "brave-1"
    store.save({"web_search": {"brave_search_api_key": SECRET_MASK}})  # an old form sends the mask back
    assert store.current().web_search.engines["brave"].api_key.get_secret_value() == "brave-1"
    assert mask_secret_fields({"web_search": {"brave_search_api_key": "brave-1"}}) == {
        "web_search": {"brave_search_api_key": SECRET_MASK}}


@pytest.mark.parametrize("environ, where, value", [
    ({"TAVILY_API_KEY": "tv-env"}, ("tavily", "api_key"), "tv-env"),
    ({"GOOGLE_PSE_ENGINE_ID": "cx-env"}, ("google_pse", "engine_id"), "cx-env"),
    ({"SEARXNG_QUERY_URL": "http://sx/?q=<query>"}, ("searxng", "query_url"), "http://sx/?q=<query>"),
    ({"RAGDESK_WEB_SEARCH__SERPER_API_KEY": "sp-env"}, ("serper", "api_key"), "sp-env"),  # today's RAGDESK_ name
    ({"RAGDESK_WEB_SEARCH__ENGINES__SERPER__API_KEY": "sp-new"}, ("serper", "api_key"), "sp-new"),
])
def test_documented_environment_names_still_set_the_engine_fields(db, environ, where, value):
    store = SettingsStore(db, environ=environ)
    got = getattr(store.current().web_search.engines[where[0]], where[1])
    assert (got.get_secret_value() if hasattr(got, "get_secret_value") else got) == value
    assert store.overridden()["web_search"]["engines"][where[0]] == {where[1]: value}


def test_secret_environment_values_are_masked_in_the_overrides_view(db):
    from core.engine import Engine  # noqa: F401 (the engine masks overrides the same way)

    store = SettingsStore(db, environ={"GOOGLE_DRIVE_CLIENT_SECRET": "gd-secret", "WEB_SEARCH_ENGINE": "brave"})
    shown = mask_secret_fields(store.overridden())
    assert shown["gdrive"]["client_secret"] == SECRET_MASK and shown["web_search"]["web_search_engine"] == "brave"
    assert "gd-secret" not in repr(masked(store.current()))
