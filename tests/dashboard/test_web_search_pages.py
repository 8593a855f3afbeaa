"""The chat's Web search switch and the A/B page's strict note, over the real engine and the fake
search engine server (extractive answerer)."""

from __future__ import annotations

from tests.dashboard.conftest import goto, new_app, sign_up, texts
from tests.websearch.conftest import GUARD_OPEN_FOR_TEST_HOST
from tests.websearch.fake_engines import fake_engines, html_page

Q = "How tall is the Quenby lighthouse?"


def _ready(engine, fake, **strict):
    at = sign_up(new_app(), "alice")  # the first user is the admin
    actor = engine.actor_for(at.session_state["user_id"])
    engine.save_settings(actor, {"parsing": GUARD_OPEN_FOR_TEST_HOST, "web_search": fake.settings("searxng"),
                                 "strict": {"rag_strict_mode": bool(strict)}})
    page = fake.page("/pages/lighthouse", html_page("Quenby lighthouse", "The Quenby lighthouse is 47 metres tall."))
    fake.results(Q, [(page, "Quenby lighthouse", "")])
    return at, actor, page


def test_the_switch_searches_the_web_and_the_answer_cites_the_page(engine):
    with fake_engines() as fake:
        at, actor, page = _ready(engine, fake)
        at = goto(at, "chat")
        toggle = at.toggle(key="chat_web")
        assert toggle.label == "Web search" and not toggle.disabled
        toggle.set_value(True).run()
        at.chat_input[0].set_value(Q).run()
        assert not at.exception
        assert len(fake.hits("/search")) == 1
        assert "47 metres" in "\n".join(str(m.value) for m in at.chat_message[-1].markdown)
        assert any(page in e.label for e in at.expander if e.label.startswith("["))
        assert page in [x.value for x in at.text]  # the "Searched 1 site(s)" status lists the URL


def test_strict_mode_disables_the_switch_with_a_note_and_never_searches(engine):
    with fake_engines() as fake:
        at, actor, _ = _ready(engine, fake, strict=True)
        at = goto(at, "chat")
        assert at.toggle(key="chat_web").disabled
        assert "Web search is off in strict mode" in texts(at)
        at.chat_input[0].set_value(Q).run()
        assert fake.requests == []


def test_no_switch_when_web_search_is_not_enabled(engine):
    at = goto(sign_up(new_app(), "bob"), "chat")
    assert not [x for x in at.toggle if x.key == "chat_web"]


def test_ab_page_says_web_search_is_off_in_strict(engine):
    with fake_engines() as fake:
        at, actor, page = _ready(engine, fake)
        at = goto(at, "ab")
        assert "web search: off in strict" in texts(at)
        at.toggle(key="ab_web").set_value(True).run()
        at.text_area(key="ab_question").input(Q)
        [b for b in at.button if b.label == "Compare"][0].click().run()
        assert not at.exception
        assert len(fake.hits("/search")) == 1  # the normal side only
        assert "47 metres" in texts(at)


def test_settings_page_has_a_web_search_section_with_masked_keys(engine):
    at = goto(sign_up(new_app(), "carol"), "settings")
    assert "Search" in [tab.label for tab in at.tabs] and "Web search" in [h.value for h in at.subheader]
    [w for w in at.text_input if w.label == "Only these sites"][0].input("example.com, docs.example.org")
    [w for w in at.text_input if w.label == "Tavily API key"][0].input("tvly-secret-9")
    [w for w in at.toggle if w.label == "Web search"][0].set_value(True)
    at.button(key="save.web_search").click()
    at.run()
    assert engine.settings().web_search.engines["tavily"].api_key.get_secret_value() == "********"  # masked outside
    cfg = engine._settings().web_search
    assert cfg.enable_web_search and cfg.web_search_domain_filter_list == ["example.com", "docs.example.org"]
    assert cfg.engines["tavily"].api_key.get_secret_value() == "tvly-secret-9"
    assert "tvly-secret-9" not in texts(at) and "tvly-secret-9" not in [w.value for w in at.text_input]
