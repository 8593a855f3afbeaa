"""The Assistants page over the real engine (AppTest): create an assistant with every field, see the
engine's error for a bad value with nothing typed lost, change it (an emptied field goes back to the
global setting), and delete it; a plain user changes only their own."""

from __future__ import annotations

from core.ingest.service import Upload
from tests.dashboard.conftest import button, goto, new_app, sign_up, texts
from tests.dashboard.test_knowledge_bases import POLICY

REFUSAL = "差旅助手只回答差旅制度的问题。"


def _widget(items, key_end: str):
    [found] = [w for w in items if w.key and w.key.split(".")[0].endswith(key_end)]
    return found


def test_create_change_and_delete_an_assistant_on_its_page(engine):
    at = sign_up(new_app(), "alice")  # the first account: the admin
    alice = engine.actor_for(at.session_state["user_id"])
    travel = engine.create_kb(alice, "差旅")
    engine.ingest(alice, travel.id, [Upload("差旅.md", POLICY.encode())])
    engine.define_metadata_field(alice, travel.id, "office", "text")
    engine.create_kb(alice, "canteen")
    at = goto(at, "assistants")
    assert "No assistant yet" in texts(at)
    _widget(at.text_input, "_name").input("travel-desk")
    _widget(at.multiselect, "_kbs").select(travel.id)
    _widget(at.selectbox, "_visibility").select("public")
    _widget(at.number_input, "_strict").set_value(0.4)
    _widget(at.number_input, "_top_k").set_value(3)
    _widget(at.text_area, "_refusal").input(REFUSAL)
    _widget(at.text_area, "_prompt").input("no placeholder here")  # refused by the engine
    _widget(at.text_input, "_where").input("office=Lisbon")
    button(at, "Create assistant").click()
    at.run()
    assert not at.exception and "CONTEXT" in "\n".join(e.value for e in at.error)
    assert engine.list_assistants(alice) == []
    assert _widget(at.text_input, "_name").value == "travel-desk"  # nothing typed is lost
    assert _widget(at.text_area, "_refusal").value == REFUSAL and _widget(at.number_input, "_top_k").value == 3
    _widget(at.text_area, "_prompt").input("")
    _widget(at.text_input, "_where").input("nosuch=1")  # a field none of its knowledge bases has
    button(at, "Create assistant").click()
    at.run()
    assert "'nosuch'" in "\n".join(e.value for e in at.error) and engine.list_assistants(alice) == []
    _widget(at.text_input, "_where").input("office=Lisbon")
    button(at, "Create assistant").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    [made] = engine.list_assistants(alice)
    assert (made.name, made.kb_ids, made.mode, made.visibility, made.strict_min_similarity, made.top_k,
            made.refusal_text, made.where) == ("travel-desk", [travel.id], "strict", "public", 0.4, 3, REFUSAL,
                                               {"office": "Lisbon"})
    assert "saved" in texts(at) and at.selectbox(key="assistant_edit").value == made.id  # now being changed
    # change: normal mode, top-k emptied (back to the global setting), the filter cleared
    _widget(at.selectbox, "_mode").select("normal")
    _widget(at.multiselect, "_reset").select("top_k")  # a filled number box: back to the global setting
    _widget(at.text_input, "_where").input("")
    button(at, "Save").click()
    at.run()
    assert not at.exception and not at.error
    changed = engine.get_assistant(alice, made.id)
    assert (changed.mode, changed.top_k, changed.where, changed.strict_min_similarity) == ("normal", None, None, 0.4)
    # a plain user sees it (public) but may not change it: not offered in the picker
    bob_at = sign_up(new_app(), "bob")
    bob_at = goto(bob_at, "assistants")
    assert bob_at.selectbox(key="assistant_edit").options == ["New assistant"] and "travel-desk" in str(
        [d.value for d in bob_at.dataframe])
    # delete (confirmed)
    button(at, "Delete assistant").click()
    at.run()
    assert engine.list_assistants(alice) != [] and "Tick the box" in texts(at)
    at.checkbox(key=f"asst_delete_sure_{made.id}").check()
    button(at, "Delete assistant").click()
    at.run()
    assert not at.exception and engine.list_assistants(alice) == [] and "deleted" in texts(at)
