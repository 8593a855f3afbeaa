"""Strict mode's key-term check (opt-in) refuses near misses: a question in the knowledge base's own
vocabulary that names something the knowledge base never mentions gets the fixed reply, with no
model call, even when its best passage passes the score threshold; a covered question in the same
words is answered. Off (the default) the threshold alone decides."""

from __future__ import annotations

import pytest

from core.answering.coverage import coverage, key_terms, unexcused
from core.answering.replies import no_hit_reply
from core.settings.model import StrictModeSettings
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, use_openai
from tests.engine.conftest import make_engine, md
from tests.fakes import fake_llm_server, text

LEAVE_ZH = """# 假期制度

## 年假

第一条 员工每个自然年享有十五天带薪年假，由组长审批。

## 病假

第二条 连续病假三天以内无需证明，超过三天须提交医院证明。
"""

LEAVE_EN = """# Leave policy

## Annual leave

Every employee receives 15 days of paid annual leave per calendar year, approved by the team lead.

## Sick leave

Sick leave of up to 3 consecutive days needs no certificate.
"""

NEAR_ZH, COVERED_ZH = "实习生每年有几天带薪年假？", "员工每年有几天带薪年假？"
NEAR_EN, COVERED_EN = "How many days of paid annual leave do interns receive?", "How many days of paid annual leave does an employee receive?"


def test_key_terms_leave_out_question_words_and_keep_numbers():
    assert key_terms("员工每年有几天带薪年假？") == ["员工", "每年", "带薪"]
    assert "15" in key_terms("年假是十五天吗？") and "15" in key_terms("年假是15天吗？")
    assert key_terms("Who approves overtime?") == ["approves", "overtime"]
    assert "部门" not in key_terms("由哪个部门负责审查？")  # the kind of answer asked for


def test_coverage_forgives_form_not_a_missing_word():
    assert coverage("Who approved the overtime?", ["Overtime must be approved by the team lead."]).covered
    assert coverage("员工每年有几天年假？", ["员工每个自然年享有十五天带薪年假"]).covered  # 每年 ~ 每个自然年
    assert coverage("年假有15天吗？", ["员工享有十五天年假"]).covered  # 15 ~ 十五
    assert coverage("坐飞机要谁批准？", ["乘坐飞机须经部门负责人批准"]).covered  # 坐飞机: 飞机
    miss = coverage("刑事诉讼监督案件由谁审查？", ["行政诉讼监督案件由行政检察部门审查"])
    assert miss.missing == ("刑事诉讼",)
    assert coverage(NEAR_EN, [LEAVE_EN]).missing == ("interns",)


@pytest.fixture
def leave_engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir)
    e.create_kb(ADMIN, "leave")
    assert all(r.status == "indexed" for r in e.ingest(ADMIN, "leave", [md("假期.md", LEAVE_ZH), md("leave.md", LEAVE_EN)]))
    yield e
    e.close()


@pytest.mark.parametrize("near, covered, missing", [(NEAR_ZH, COVERED_ZH, "实习生"), (NEAR_EN, COVERED_EN, "interns")])
def test_a_near_miss_is_refused_without_a_model_call_and_the_covered_question_answered(leave_engine, near, covered, missing):
    threshold = StrictModeSettings().rag_strict_min_similarity
    with fake_llm_server() as server:
        use_openai(leave_engine, server)
        configure(leave_engine, strict={"rag_strict_mode": True, "rag_strict_term_check": True},
                  answering={"builtin_tools": False})
        refused = leave_engine.ask(ADMIN, near, temporary=True)
        # The threshold alone would let it in: its best passage passes.
        assert max(r["score"] for r in refused.retrieved) >= threshold
        assert refused.text == no_hit_reply(StrictModeSettings(), near)
        assert not refused.hit and not refused.llm_called and not refused.citations
        assert server.request_count == 0
        assert any(missing in n for n in refused.notices)

        server.add(text("Answered from the passage [1]"))
        answered = leave_engine.ask(ADMIN, covered, temporary=True)
        assert answered.hit and answered.llm_called and answered.citations and server.chat_count == 1
        assert not any("mention" in n or "未提及" in n for n in answered.notices)


def test_by_default_the_check_refuses_the_near_miss_and_off_the_threshold_alone_decides(leave_engine):
    assert StrictModeSettings().rag_strict_term_check
    with fake_llm_server() as server:
        use_openai(leave_engine, server)
        configure(leave_engine, strict={"rag_strict_mode": True}, answering={"builtin_tools": False})
        refused = leave_engine.ask(ADMIN, NEAR_ZH, temporary=True)
        assert not refused.llm_called and server.chat_count == 0
        configure(leave_engine, strict={"rag_strict_mode": True, "rag_strict_term_check": False},
                  answering={"builtin_tools": False})
        server.add(text("实习生的年假…… [1]"))
        answer = leave_engine.ask(ADMIN, NEAR_ZH, temporary=True)
        assert answer.hit and answer.llm_called and server.chat_count == 1


def test_a_strong_passage_excuses_wording_never_a_number():
    paper = ["Dense Passage Retriever (DPR) uses two BERT encoders; it retrieves the top 20 passages."]
    cover = coverage("What does DPR stand for?", paper)
    assert cover.missing == ("stand",)
    assert unexcused(cover, best_score=0.80, excuse_score=0.76) == ()  # far above the threshold: worded otherwise
    assert unexcused(cover, best_score=0.50, excuse_score=0.76) == ("stand",)  # a middling passage: still a near miss
    numbers = coverage("Does DPR retrieve the top 100 passages?", paper)
    assert "100" in numbers.missing
    assert unexcused(numbers, best_score=0.99, excuse_score=0.76) == ("100",)  # a number the text does not give


NUMBER_EN = "Do employees get 20 days of paid annual leave?"


def test_the_excuse_score_lets_a_reworded_question_through_and_keeps_numbers_refused(leave_engine):
    with fake_llm_server() as server:
        use_openai(leave_engine, server)
        # The excuse at 0: every passage that passes is "strong", so only numbers can refuse.
        configure(leave_engine, strict={"rag_strict_mode": True, "rag_strict_term_check": True,
                                        "rag_strict_term_excuse_score": 0.0},
                  answering={"builtin_tools": False})
        server.add(text("Answered from the passage [1]"))
        reworded = leave_engine.ask(ADMIN, NEAR_EN, temporary=True)  # "interns" is excused
        assert reworded.hit and reworded.llm_called and server.chat_count == 1
        number = leave_engine.ask(ADMIN, NUMBER_EN, temporary=True)
        assert number.text == no_hit_reply(StrictModeSettings(), NUMBER_EN)
        assert not number.hit and not number.llm_called and server.request_count == 1
        assert any("20" in n for n in number.notices)
        # 1.01: nothing is excused, the near miss is refused again.
        configure(leave_engine, strict={"rag_strict_term_excuse_score": 1.01})
        again = leave_engine.ask(ADMIN, NEAR_EN, temporary=True)
        assert not again.hit and server.request_count == 1


def test_word_classes_nouns_names_numbers_refuse_relation_words_do_not():
    from core.answering.word_class import names_something

    # English: verbs, adjectives, adverbs relate; nouns, names (capitalised, not in the lexicon), numbers name.
    assert not names_something("What does DPR stand for?", "stand")
    assert not names_something("What top-5 accuracy does DPR reach compared with BM25?", "reach")
    assert not names_something("What must a trustee do if they can no longer perform their duties?", "longer")
    assert names_something("Which pretrained model does the approach build on?", "approach")  # after "the": a noun
    assert not names_something("Which pretrained model does the approach build on?", "build")  # after the subject: the verb
    assert names_something("What is the taxi limit per ride?", "ride")  # after "per": a noun
    assert names_something("By how much does it beat the Lucene BM25 system?", "lucene")
    assert names_something("How many days of leave do interns get?", "interns")
    # Chinese: nouns and verbs name what is asked about (体检 over a handbook without health checks);
    # prepositions, adverbs and modal verbs only frame the question.
    assert names_something("实习生每年有几天带薪年假？", "实习生")
    assert names_something("员工每年体检几次？", "体检")
    assert not names_something("员工每年到底有几天带薪年假？", "到底")
    assert not names_something("检察院能不能为了证明行政行为合法去调取证据？", "为了")
    assert names_something("二审判决生效后30日内可以申请抗诉吗？", "30")


# Each question lacks one word of the passage; the score excuse is off (1.01) so only the word's class decides.
VERB_EN, VERB_ZH = "How many days of paid annual leave does an employee earn?", "员工每年到底有几天带薪年假？"


@pytest.mark.parametrize("relation, noun, missing", [(VERB_EN, NEAR_EN, "interns"), (VERB_ZH, NEAR_ZH, "实习生")])
def test_a_missing_relation_word_is_excused_a_missing_noun_refused(leave_engine, relation, noun, missing):
    with fake_llm_server() as server:
        use_openai(leave_engine, server)
        configure(leave_engine, strict={"rag_strict_mode": True, "rag_strict_term_check": True,
                                        "rag_strict_term_excuse_score": 1.01}, answering={"builtin_tools": False})
        assert StrictModeSettings().rag_strict_excuse_relation_words  # the default when the check is on
        server.add(text("Answered from the passage [1]"))
        answered = leave_engine.ask(ADMIN, relation, temporary=True)
        assert answered.hit and answered.llm_called and answered.citations and server.chat_count == 1
        assert not any("mention" in n or "未提及" in n for n in answered.notices)

        refused = leave_engine.ask(ADMIN, noun, temporary=True)
        assert refused.text == no_hit_reply(StrictModeSettings(), noun)
        assert not refused.hit and not refused.llm_called and server.request_count == 1
        assert any(missing in n for n in refused.notices)

        # Off: every key term must be found, the relation word refuses too.
        configure(leave_engine, strict={"rag_strict_excuse_relation_words": False})
        strict_again = leave_engine.ask(ADMIN, relation, temporary=True)
        assert not strict_again.hit and not strict_again.llm_called and server.request_count == 1
