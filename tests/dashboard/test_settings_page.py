"""Documents Settings: save applies at once, validation messages, env-locked fields,
masked secrets, template preview, reindex offer."""

from __future__ import annotations

from tests.dashboard.conftest import goto, new_app, sign_in, sign_up, texts


def _widget(elements, label):
    found = [w for w in elements if w.label == label]
    assert found, f"no widget {label!r}"
    return found[0]


def _admin_on_settings():
    return goto(sign_up(new_app(), "alice"), "settings")


def test_strict_switch_saves_and_applies_without_restart(engine):
    at = _admin_on_settings()
    assert "Normal mode" in "\n".join(m.value for m in at.markdown)
    _widget(at.toggle, "Strict mode").set_value(True)
    at.button(key="save.strict").click()
    at.run()
    assert engine.settings().strict.rag_strict_mode is True
    assert "Saved Strict mode" in texts(at)
    assert "Strict mode" in "\n".join(m.value for m in at.markdown)  # the header badge
    assert _widget(at.toggle, "Strict mode").value is True


def test_invalid_values_show_the_engine_message_and_save_nothing(engine):
    at = _admin_on_settings()
    _widget(at.number_input, "Overlap").set_value(600)
    at.button(key="save.chunking").click()
    at.run()
    assert "chunk_overlap (600) must be smaller than chunk_size (500)" in texts(at)
    assert engine.settings().chunking.chunk_overlap == 50


def test_chunking_change_offers_reindex(engine):
    at = _admin_on_settings()
    _widget(at.number_input, "Chunk size").set_value(800)
    at.button(key="save.chunking").click()
    at.run()
    assert engine.settings().chunking.chunk_size == 800
    assert "existing knowledge bases keep their old index" in texts(at)
    assert any(b.label.startswith("Reindex all") for b in at.button)


def test_secrets_masked_env_fields_locked(engine, monkeypatch):
    admin = engine.actor_for(engine.sign_up("root", "correct horse 1").id)
    monkeypatch.setenv("RAGDESK_LLM__MODEL", "qwen-from-env")  # deployments set it before start
    engine.save_settings(admin, {"llm": {"api_key": "sk-very-secret-123"}})
    at = goto(sign_in(new_app(), "root"), "settings")
    assert _widget(at.text_input, "API key").value == "********"
    locked = _widget(at.text_input, "🔒 Model name")
    assert locked.disabled and locked.value == "qwen-from-env"
    assert "RAGDESK_LLM__MODEL" in locked.help
    assert "sk-very-secret" not in repr(at._tree)
    # saving another field keeps the secret and does not store the env value
    _widget(at.number_input, "Temperature").set_value(0.7)
    at.button(key="save.llm").click()
    at.run()
    s = engine._settings()  # the raw model (engine.settings() is masked for callers outside core)
    assert (s.llm.api_key.get_secret_value(), s.llm.temperature, s.llm.model) == ("sk-very-secret-123", 0.7, "qwen-from-env")


def test_template_preview_fills_context_and_query(engine):
    at = _admin_on_settings()
    preview = [c.value for c in at.code]
    assert any("How many days of annual leave" in p and "New employees get 10 days" in p and "{{" not in p
               for p in preview)
    assert _widget(at.text_area, "Answer template").help.startswith("The instructions sent with the passages. Must contain {{CONTEXT}}")


def test_every_field_has_a_human_label_in_both_languages():
    from typing import get_origin

    from core.settings import model as m
    from core.settings.fields import plugin_maps
    from dashboard.locales.settings_text import EN, ZH

    sections = {"strict": m.StrictModeSettings, "llm": m.LLMSettings, "answering": m.AnsweringSettings,
                "retrieval": m.RetrievalSettings, "retrieval.reranker": m.RerankerSettings,
                "chunking": m.ChunkingSettings, "embedding": m.EmbeddingSettings, "parsing": m.ParsingSettings,
                "web_search": m.WebSearchSettings, "gdrive": m.GoogleDriveSettings}
    # each built-in web search engine's own sub-model is drawn in the Web search form
    # (ragdesk's own: a plugin loaded in the same test run brings its own words, or shows its names)
    sections |= {f"web_search.{f}.{name}": sub for f, name, sub in plugin_maps(m.WebSearchSettings)
                 if sub.__module__.startswith("core.")}
    # a plugin map is no widget of its own (each plugin's fields are)
    fields = {f"{p}.{n}" for p, cls in sections.items() for n, info in cls.model_fields.items()
              if not (isinstance(info.annotation, type) and issubclass(info.annotation, m.BaseModel))
              and get_origin(info.annotation) is not dict}
    assert fields - set(EN) == set() and set(EN) == set(ZH)
    assert all(label and help_text and "_" not in label for label, help_text in [*EN.values(), *ZH.values()])


def test_feedback_is_listed_for_admins(engine):
    at = _admin_on_settings()
    actor = engine.actor_for(at.session_state["user_id"])
    engine.save_settings(actor, {"retrieval": {"rag_min_similarity": 0.0}})
    answer = engine.ask(actor, "anything at all")
    engine.set_feedback(actor, answer.message_id, -1)
    at.run()
    table = next(d.value for d in at.dataframe if "Rating" in d.value.columns)
    # words, not an emoji a machine without an emoji font draws as a box (issue 36)
    assert list(table["Question"]) == ["anything at all"] and list(table["Rating"]) == ["not helpful"]
    at.sidebar.selectbox(key="user_lang").select("zh")
    at.run()
    table = next(d.value for d in at.dataframe if "评价" in d.value.columns)
    assert list(table["评价"]) == ["没用"]
