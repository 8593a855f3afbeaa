"""A select box shows its current words, not the words of an earlier run (issue 36): right after
switching the language, Documents Settings kept "OpenAI-compatible API"; after "Update sharing"
the knowledge-base picker kept "(private)".

The browser keeps showing the label it holds for a widget it already has (same id) unless the
server sends a value with it (``set_value``); a new widget shows its default. ``shown`` replays
that on the elements of two runs, so these tests see what a person sees."""

from __future__ import annotations

from tests.dashboard.conftest import button, goto, new_app, sign_up


def _labels(at) -> dict[str, str]:
    return {s.id: s.proto.raw_value if s.proto.set_value else s.options[s.proto.default] for s in at.selectbox}


def shown(at, before: dict[str, str]) -> dict[str, str]:
    """What the browser shows in each select box (by key, else label) after this run."""
    out = {}
    for s in at.selectbox:
        if s.proto.set_value:
            label = s.proto.raw_value
        elif s.id in before:
            label = before[s.id]  # the browser's own, from an earlier run
        else:
            label = s.options[s.proto.default]
        out[s.key or s.label] = label
    return out


def _switch(at, code: str) -> dict[str, str]:
    before = _labels(at)
    at.sidebar.selectbox(key="user_lang").select(code)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return before


def test_settings_select_boxes_show_the_new_language_at_once(engine):
    at = goto(sign_up(new_app(), "alice"), "settings")
    before = _switch(at, "zh")
    boxes = {s.key or s.label: s.options for s in at.selectbox}
    now = shown(at, before)
    stale = {k: label for k, label in now.items() if label not in boxes[k]}
    assert stale == {}, stale  # "OpenAI-compatible API" stayed in the Chinese page
    assert "离线摘录式回答（无需模型）" in now.values() and "用通用知识回答，并注明来源" in now.values()


def test_knowledge_base_page_select_boxes_show_the_new_language_at_once(engine):
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    engine.create_kb(actor, "handbook")
    at = goto(at, "kbs")
    before = _switch(at, "zh")
    boxes = {s.key or s.label: s.options for s in at.selectbox}
    now = shown(at, before)
    assert {k: label for k, label in now.items() if label not in boxes[k]} == {}
    assert now["kb_id"] == "handbook (私有)"


def test_the_picker_shows_the_new_visibility_after_update_sharing(engine):
    at = sign_up(new_app(), "alice")
    engine.sign_up("bob", "correct horse 2")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "handbook")
    at = goto(at, "kbs")
    assert shown(at, {})["kb_id"] == "handbook (private)"
    before = _labels(at)
    at.multiselect(key=f"share_{kb.id}_users").select("bob")
    button(at, "Update sharing").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert engine.get_kb(actor, kb.id).visibility == "shared"
    assert shown(at, before)["kb_id"] == "handbook (shared)"
