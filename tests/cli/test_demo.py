"""The bundled demo: `python -m core demo` builds a bilingual knowledge base that answers the
demo question set; a second run finds it again."""

from __future__ import annotations

from core.demo import DEMO_KB, demo_questions, load_demo
from core.types import SYSTEM_ACTOR
from tests.cli.test_cli import as_json, run_cli
from tests.engine.conftest import make_engine


def test_demo_question_set_has_covered_and_off_topic_questions():
    items = demo_questions()
    covered = [i for i in items if i.expected not in (None, "", "-")]
    off_topic = [i for i in items if i.expected == "-"]
    assert len(covered) >= 13 and len(off_topic) >= 2
    assert any("年假" in i.question for i in covered) and any("annual leave" in i.question for i in covered)


def test_demo_kb_answers_its_questions_in_both_languages(data_dir):
    with make_engine(data_dir) as engine:
        result = load_demo(engine, SYSTEM_ACTOR)
        assert result.created and result.ok and [r.status for r in result.files] == ["indexed"] * 7
        again = load_demo(engine, SYSTEM_ACTOR)  # the generated files are the same bytes: nothing is added twice
        assert not again.created and [r.status for r in again.files] == ["duplicate"] * 7
        for question, fact in (("员工每年有几天带薪年假？", "十五天"), ("How long is paid parental leave?", "16 weeks")):
            hits = engine.search(SYSTEM_ACTOR, question, [DEMO_KB], mode="bm25").hits
            assert hits and fact in hits[0].text, (question, [h.text[:80] for h in hits])


def test_demo_cli(data_dir):
    out = as_json(run_cli(data_dir, "--json", "demo"))
    assert out["kb"] == DEMO_KB and out["created"] and {f["status"] for f in out["files"]} == {"indexed"}
    assert as_json(run_cli(data_dir, "--json", "demo", "load"))["created"] is False
    questions = run_cli(data_dir, "demo", "questions").stdout.splitlines()
    assert len(questions) == len(demo_questions()) and '"expected"' in questions[0]
