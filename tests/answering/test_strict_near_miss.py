"""Strict mode answers what a passage answers and refuses the rest (core/answering/answerable.py).

A near miss — a question in the knowledge base's own vocabulary naming something it never mentions
(interns, a motorbike) — is refused with the fixed reply, no model call and a notice naming what is
missing, even when its best passage passes the score threshold. A covered question worded otherwise
("each year", "cap", 上限) or asked in the other language is answered. The unit tests read questions
and passages directly; the engine tests ask through strict mode with the bundled multilingual model
and count requests at a fake OpenAI server.
"""

from __future__ import annotations

import pytest

from core.answering.answer_types import asked_for
from core.answering.answerable import best_evidence, judge
from core.answering.reading import read_question
from core.answering.coverage import key_terms
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

## 差旅

| 项目 | 标准 |
|---|---|
| 住宿（一线城市） | 每晚六百元 |
| 住宿（其他城市） | 每晚四百元 |
"""

LEAVE_EN = """# Leave policy

## Annual leave

Every employee receives 15 days of paid annual leave per calendar year, approved by the team lead.

## Sick leave

Sick leave of up to 3 consecutive days needs no certificate.

## Mileage

Staff who drive their own car on company business are paid 0.30 EUR per kilometre.
"""


def answers(question: str, passage: str) -> bool:
    return judge(read_question(question), [passage]).answerable


def test_key_terms_leave_out_question_words_and_keep_numbers():
    assert key_terms("员工每年有几天带薪年假？") == ["员工", "每年", "带薪"]
    assert "15" in key_terms("年假是十五天吗？") and "15" in key_terms("年假是15天吗？")
    assert key_terms("Who approves overtime?") == ["approves", "overtime"]


def test_a_named_thing_the_passage_lacks_refuses_framing_words_do_not():
    # the entity asked about must be there
    assert not answers("How many days of paid annual leave do interns receive?", LEAVE_EN)
    assert not answers("实习生每年有几天带薪年假？", LEAVE_ZH)
    assert not answers("How much is the allowance per kilometre for my own motorbike?", LEAVE_EN)
    # words of the question's framing are not looked for: each, cap, 上限, 持续
    assert answers("How many days of paid annual leave do staff get each year?", LEAVE_EN)
    assert answers("How many days of paid annual leave does an employee earn?", LEAVE_EN)
    assert answers("一线城市住宿每晚上限多少？", LEAVE_ZH)
    assert answers("员工每年到底有几天带薪年假？", LEAVE_ZH)


def test_a_question_in_the_other_language_is_judged_by_meaning():
    # 年假 is "annual leave", 员工 "employee", 病假 "sick leave" (a dictionary, not the words)
    assert answers("员工每年有几天年假？", LEAVE_EN)
    assert answers("How many days of annual leave do employees get?", LEAVE_ZH)
    assert answers("开自己的车出差每公里补多少钱？", LEAVE_EN)
    # the near misses stay refused across languages
    assert not answers("实习生每年有几天年假？", LEAVE_EN)
    assert not answers("How many days of annual leave do interns get?", LEAVE_ZH)


def test_for_work_is_the_setting_not_a_thing_named():
    # every workplace text is about work: "for work" need not be written ("on company business" is)
    assert answers("How much do I get per kilometre when I drive my own car for work?", LEAVE_EN)
    # a thing named with the word still is: a work permit is not annual leave
    assert not answers("How many days of work permit leave do employees get?", LEAVE_EN)
    assert not answers("How much do I get per kilometre when I drive a rental car for work?", LEAVE_EN)


def test_a_gloss_s_adjective_synonyms_do_not_stand_for_a_chinese_noun():
    # 产品 is "goods; product"; WordNet's adjective "good" is also "full" ("reimbursed in full"): a
    # product manager is not named by a passage about engineers' fees paid in full
    from core.answering.mentions import PassageText

    costs = PassageText("- Visa fees of engineers on a business trip: reimbursed in full, approved by the "
                        "engineering manager.")
    question = read_question("产品经理的签证费用能报销吗？")
    assert [t.text for t in question.named if not costs.mentions(t)] == ["产品"]
    assert not [t.text for t in read_question("工程师的签证费用能报销吗？").named if not costs.mentions(t)]


def test_the_value_asked_for_must_be_stated_about_what_is_asked():
    passage = "问：L7 支持哪些开锁方式？\n答：支持指纹和密码；L7 Pro 另支持人脸识别。\n问：最多可以录入多少个指纹？\n答：最多可录入 100 个指纹。"
    assert answers("最多能录入多少个指纹？", passage)
    assert not answers("最多能存多少张人脸？", passage)  # the number is the fingerprints', not the faces'
    probation = "第三条 试用期满的员工每周最多可居家办公两天。"
    assert not answers("新员工试用期多长？", probation)  # two days of working from home, not the probation
    price = "The L7 Pro uses a 5000 mAh lithium battery that lasts about 6 months."
    assert not answers("What does a replacement battery for the L7 Pro cost?", price)  # no money in it
    assert answers("How long does the L7 Pro battery last?", price)


def test_the_unit_a_question_counts_in_says_the_kind_of_value():
    layers = "第十五条 托盘货物堆放不得超过三层，每层之间须放置垫板。"
    assert not answers("托盘最多能堆几米高？", layers)  # three layers is a count, not a height
    assert not answers("How many metres high may pallets be stacked?", layers)
    height = "第十五条 托盘货物堆放高度不得超过1.5米，每层之间须放置垫板。"
    assert answers("托盘最多能堆几米高？", height)
    assert answers("How many metres high may pallets be stacked?", height)
    assert answers("托盘最多能堆几米高？", height.replace("1.5米", "一点五米"))  # a decimal in numerals
    assert not answers("行李箱多少公斤以内免费托运？", "每位旅客可免费托运行李两件。")  # pieces, not kilograms
    assert answers("行李箱多少公斤以内免费托运？", "每位旅客可免费托运行李两件，每件不超过23公斤。")


def test_a_question_that_negates_is_answered_by_the_sentence_that_negates():
    rules = "第六条 报销申请由部门经理审批，部门经理审批后交财务部复核。部门经理不批准报销申请的，员工可以向财务总监申请复核。"
    question = read_question("经理不批准我的报销申请，还能找谁？")
    found = best_evidence(question, [rules], (0,))
    assert found is not None and "财务总监" in found.text, found
    question = read_question("经理没有批准报销申请怎么办？")
    assert "财务总监" in best_evidence(question, [rules], (0,)).text
    bound = read_question("报销申请不超过多少钱由部门经理审批？")  # a bound, not a negation
    assert "不批准" not in best_evidence(bound, ["报销申请由部门经理审批。部门经理不批准的，交总经理。"], (0,)).text


def test_a_date_may_be_an_event_s_date():
    assert answers("这个办法从什么时候开始施行？", "第二十条 本办法自印发之日起施行，原办法同时废止。")
    assert answers("When does the policy take effect?", "This policy takes effect upon approval by the board.")
    assert not answers("When does the policy take effect?", "This policy applies to all permanent staff.")


def test_a_faq_answer_belongs_to_its_question():
    faq = "## 常见问题\n加班由谁批准？ 由组长在加班前批准。\n\n一线城市住宿标准是多少？ 每晚六百元，含早餐。"
    assert answers("What is the hotel cap per night in first-tier cities?", faq)  # the value follows its question
    assert answers("一线城市住宿每晚多少钱？", "问：一线城市住宿标准是多少？\n答：每晚六百元。")
    other = "一线城市住宿标准是多少？ 请见差旅制度。\n\n加班费怎么算？ 每小时六十元。"
    assert not answers("一线城市住宿标准是多少钱？", other)  # the amount answers another question


def test_a_chinese_numeral_before_its_unit_states_the_value():
    assert answers("出差乘坐飞机要提前几天申请？", "第四条 出差乘坐飞机须提前三天申请，经部门负责人批准后方可订票。")
    assert answers("住宿最多报销几晚？", "每次出差最多报销五晚住宿。")


def test_a_level_ranks_one_kind_of_thing():
    table = "| Expense | Limit |\n| --- | --- |\n| Hotel, capital cities | 180 EUR per night |\n| Train | first class over 4 hours |"
    assert not answers("What is the hotel cap per night in first-tier cities?", table)  # first class is no first tier
    assert answers("What is the hotel cap per night in first-tier cities?", "| 项目 | 标准 |\n| --- | --- |\n| 住宿（一线城市） | 每晚六百元 |")
    assert answers("Can I take a first-class seat on the train?", "| 火车 | 二等座 | 行程超过四小时可乘一等座 |")


def test_a_number_of_the_question_is_found_inside_a_range_or_beyond_a_bound():
    table = "| Monthly uptime | Credit |\n| --- | --- |\n| Below 99.0% but at least 95.0% | 25% |"
    assert answers("What credit do we get if uptime drops to 97%?", table)
    assert answers("Who approves an expense claim of 3,000 euros?", "Expense claims above 2,500 EUR are approved by the Finance Controller.")
    assert not answers("Do employees get 20 days of paid annual leave?", LEAVE_EN)  # a number it does not give


def test_one_passage_must_answer_not_two_halves():
    interns = "Interns receive a monthly stipend of 800 EUR."
    leave = "Every employee receives 15 days of paid annual leave per calendar year."
    question = read_question("How many days of paid annual leave do interns receive?")
    assert not judge(question, [interns, leave]).answerable


def test_the_answering_sentence_or_row_is_the_evidence():
    question = read_question("一线城市住宿每晚多少钱？")
    found = best_evidence(question, [LEAVE_ZH], (0,))
    assert found is not None and "六百元" in found.text and "其他城市" not in found.text
    who = read_question("审查期限需要延长的话，由谁来批准？")
    rule = "第十二条 应当在三个月内审查终结，不计入审查期限。有特殊情况需要延长的，由本院检察长批准。"
    found = best_evidence(who, [rule], (0,))
    assert found is not None and "检察长" in found.text


def quoted(question: str, passage: str) -> str:
    found = best_evidence(read_question(question), [passage], (0,))
    return found.text if found else ""


PLANS = """Recovery targets by plan:

| Plan | Backup retention | Recovery time objective |
| --- | --- | --- |
| Basic | 5 days | 8 hours |
| Business | 20 days | 2 hours |
| Enterprise | 40 days | 45 minutes |
"""


def test_a_table_rows_cells_are_separate_statements():
    table = "| Monthly uptime | Credit |\n| --- | --- |\n| Below the target but at least 99.0% | 10% |\n| Below 99.0% but at least 95.0% | 25% |"
    # 99.0% and 10% of the first row are two cells, not a range holding 97%
    assert "25%" in quoted("What credit do we get if uptime drops to 97%?", table)


def test_a_sentence_wrapped_over_two_lines_is_one_sentence():
    refunds = ("## Refunds\n\nRefunds are paid to the original card. The total refund for one order may not\n"
               "exceed 40% of its price once it has shipped.\n\nClaims must be made within 30 days of delivery.")
    assert "40%" in quoted("What's the most we can get back for one shipped order?", refunds)


def test_a_question_after_a_limit_or_a_prohibition_quotes_the_sentence_that_states_it():
    rules = "## Shipping\n\n- Orders are shipped Monday to Thursday\n- No orders are shipped on Sundays or bank holidays"
    assert "Sundays" in quoted("On which days are orders not shipped?", rules)
    budget = "每位员工每年可报销培训费用，单次不超过两千元。\n\n培训费用须在培训结束后三十天内报销。"
    assert "两千元" in quoted("培训费用单次最多能报销多少？", budget)


def test_a_number_the_question_gives_is_not_its_answer():
    laundry = "Personal costs (minibar, laundry on trips shorter than five nights) are never reimbursed."
    assert not answers("出差超过五晚时，洗衣费每晚最多能报销多少？", laundry)
    assert not answers("How much laundry is reimbursed per night on trips longer than five nights?", laundry)


def test_a_name_is_itself_not_its_dictionary_synonym():
    # WordNet has enterprise = business; the Enterprise plan is not the Business plan
    assert "40 days" in quoted("How long are backups kept on the Enterprise plan?", PLANS)
    assert "45 minutes" in quoted("Enterprise 套餐的恢复时间目标是多久？", PLANS)


def test_the_kind_of_thing_a_name_is_need_not_be_said_but_the_name_must():
    assert answers("How long are backups kept for an Enterprise cluster?", PLANS)  # the SLA says plan, not cluster
    assert answers("Business 套餐的备份保留多少天？", PLANS)
    assert not answers("How long are backups kept for a Developer cluster?", PLANS)
    assert not answers("Developer 套餐的备份保留多少天？", PLANS)


@pytest.fixture
def leave_engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir, embedding={"model": "multilingual-e5-small"})
    for kb, docs in (("leave", [md("假期.md", LEAVE_ZH), md("leave.md", LEAVE_EN)]), ("leave-en", [md("leave.md", LEAVE_EN)]),
                     ("leave-zh", [md("假期.md", LEAVE_ZH)])):
        e.create_kb(ADMIN, kb)
        assert all(r.status == "indexed" for r in e.ingest(ADMIN, kb, docs))
    yield e
    e.close()


# (question, knowledge base, what the refusal's notice names / what the answer quotes)
NEAR = [("实习生每年有几天带薪年假？", "leave", "实习生"), ("How many days of paid annual leave do interns receive?", "leave", "interns"),
        ("How many days of annual leave do interns get?", "leave-zh", "interns"), ("实习生每年有几天年假？", "leave-en", "实习生")]
COVERED = [("员工每年有几天带薪年假？", "leave", "十五天"), ("How many days of paid annual leave do staff get each year?", "leave", "15 days"),
           ("一线城市住宿每晚上限多少？", "leave", "六百元"), ("What is the mileage rate per kilometre for my own car?", "leave", "0.30 EUR"),
           ("员工每年有几天年假？", "leave-en", "15 days"), ("How much is a hotel per night in first-tier cities?", "leave-zh", "六百元")]


@pytest.mark.slow
def test_near_misses_are_refused_without_a_model_call_covered_questions_answered_in_either_language(leave_engine):
    strict = StrictModeSettings()
    assert strict.rag_strict_term_check  # on by default
    with fake_llm_server() as server:
        use_openai(leave_engine, server)
        configure(leave_engine, strict={"rag_strict_mode": True}, answering={"builtin_tools": False})
        for question, kb, missing in NEAR:
            refused = leave_engine.ask(ADMIN, question, kbs=[kb], temporary=True)
            if kb == "leave":  # the threshold alone would let it in: its best passage passes
                assert max(r["score"] for r in refused.retrieved) >= strict.rag_strict_min_similarity, question
            assert refused.text == no_hit_reply(strict, question)
            assert not refused.hit and not refused.llm_called and not refused.citations
            if refused.retrieved and max(r["score"] for r in refused.retrieved) >= strict.rag_strict_min_similarity:
                assert any(missing in n for n in refused.notices), refused.notices  # the judgement refused it
        assert server.request_count == 0

        configure(leave_engine, llm={"provider": "extractive"})
        for question, kb, fact in COVERED:
            answered = leave_engine.ask(ADMIN, question, kbs=[kb], temporary=True)
            assert answered.hit and answered.citations and fact in answered.text, (question, answered.text, answered.notices)
            assert not any("mention" in n or "未提及" in n for n in answered.notices)


@pytest.mark.slow
def test_off_the_threshold_alone_decides(leave_engine):
    with fake_llm_server() as server:
        use_openai(leave_engine, server)
        configure(leave_engine, strict={"rag_strict_mode": True, "rag_strict_term_check": False},
                  answering={"builtin_tools": False})
        server.add(text("实习生的年假…… [1]"))
        answer = leave_engine.ask(ADMIN, NEAR[0][0], kbs=["leave"], temporary=True)
        assert answer.hit and answer.llm_called and server.chat_count == 1


def test_settings_of_the_retired_key_term_check_are_dropped_from_saved_settings():
    from core.settings.store import validate
    from core.settings.model import upgrade_legacy

    saved = {"strict": {"rag_strict_term_check": True, "rag_strict_term_excuse_score": 0.76,
                        "rag_strict_excuse_relation_words": True}}
    settings = validate(upgrade_legacy(saved), stored=True)
    assert settings.strict.rag_strict_term_check
    assert not hasattr(settings.strict, "rag_strict_term_excuse_score")


@pytest.mark.slow
def test_normal_mode_answers_a_near_miss_and_says_what_the_passages_do_not_mention(leave_engine):
    configure(leave_engine, strict={"rag_strict_mode": False}, llm={"provider": "extractive"})
    answer = leave_engine.ask(ADMIN, "How many days of paid annual leave do interns receive?", kbs=["leave"],
                              mode="normal", temporary=True)
    assert answer.hit and any("interns" in n for n in answer.notices)
    covered = leave_engine.ask(ADMIN, "How many days of paid annual leave does an employee receive?", kbs=["leave"],
                               mode="normal", temporary=True)
    assert not any("do not mention" in n for n in covered.notices)


def test_a_number_written_against_its_unit_is_a_quantity_and_a_code_is_not():
    from core.answering.reading import numbers_with_units

    assert numbers_with_units("仅支持 2.4ghz wi-fi,不支持5ghz") == [(2.4, "ghz"), (5.0, "ghz")]
    assert numbers_with_units("宽度不小于3m, charge 65w in 2h") == [(3.0, "m"), (65.0, "w"), (2.0, "h")]
    assert numbers_with_units("model l7, rated ip54, on 5g") == []  # codes, not quantities
    assert answers("Does the charger deliver 65 W?", "The bundled charger delivers 65W over USB-C.")
    assert not answers("Does the charger deliver 65 W?", "The bundled charger delivers 45W over USB-C.")


def test_a_chinese_word_is_found_in_an_english_synonym_of_its_sense():
    # 医生 is "doctor" in the dictionary; the policy says "physician" (one WordNet synset)
    assert answers("看医生的费用每年最多能报销多少？", "Physician visits are reimbursed up to 50 EUR per year.")
    assert not answers("看律师的费用每年最多能报销多少？", "Physician visits are reimbursed up to 50 EUR per year.")


def test_a_passage_is_read_with_the_passages_found_in_its_section():
    from core.answering.prompts import ContextItem
    from core.answering.strict import judged_with_section

    table = ContextItem(text="| Office | Limit per night |\n|---|---|\n| Lisbon | 180 EUR |\n| Porto | 120 EUR |",
                        source="travel.md", heading_path=["4. Travel costs"], file_id="f1")
    intro = "Hotels are booked through the travel desk; the room rate may not exceed the limit below."
    same_section = ContextItem(text=intro, source="travel.md", heading_path=["4. Travel costs"], file_id="f1")
    other_section = ContextItem(text=intro, source="travel.md", heading_path=["5. Meals"], file_id="f1")
    question = read_question("What is the most a hotel may cost per night in Lisbon?")
    judged = judge(question, judged_with_section([table, same_section]), [table.text, same_section.text])
    assert judged.answerable and judged.passage == 0  # the table states the value; its section names hotels
    assert not judge(question, judged_with_section([table, other_section]), [table.text, other_section.text]).answerable


def test_two_words_built_on_one_long_root_are_one_family():
    from core.retrieval.bilingual import related_in

    assert related_in("procuratorial", {"procuratorate"})  # procurator + ial, procurator + ate
    assert related_in("administrative", {"administration"})
    assert not related_in("internal", {"intern"}) and not related_in("intern", {"internal"})  # no "-al"
    assert not related_in("station", {"stative"})  # a short root makes no family


def test_a_value_may_be_about_the_level_a_question_names_whose_kind_goes_unsaid():
    body = ("## Outages\n- A Severity 1 outage gets a written review within three working days\n"
            "- Severity 2: one feature is degraded; it is fixed within a week")
    assert answers("一级故障要在几天内复盘？", body)  # 故障 is never said; Severity 1 is, by the value
    assert not answers("三级故障要在几天内复盘？", body)


_TARIFF = """## Parcel tariff 2025

| Code | Service | Destination | Weight (kg) | Price (EUR) |
| --- | --- | --- | --- | --- |
| ST-1 | Standard parcel | Belgium | up to 10 | 14.2 |
| EX-1 | Express parcel | Netherlands | up to 10 | 14.9 |
| UK-1 | Standard parcel | United Kingdom | up to 10 | 27.5 |
| PL-1 | Pallet | Netherlands | 10.01 to 800 | 89 |
"""


def test_a_table_row_is_one_record():
    # express is in one row and the United Kingdom in another: no row prices express to the UK
    assert answers("How much is a standard parcel to the United Kingdom?", _TARIFF)
    assert not answers("How much is an express parcel to the United Kingdom?", _TARIFF)
    # a number the question gives is the row's condition too: 15 kg is in the pallet row's range only
    assert answers("How much is a 5 kg standard parcel to Belgium?", _TARIFF)
    assert not answers("How much is a 15 kg standard parcel to Belgium?", _TARIFF)
    # what the text around the table says (its heading) need not be in the row
    assert answers("What is the 2025 price of a pallet to the Netherlands?", _TARIFF)


def test_one_before_a_noun_is_an_article_not_a_number_to_find():
    body = "| Service | Unit | Price (CNY) |\n| --- | --- | --- |\n| Port trucking | per container | 1500 |"
    assert answers("What does it cost to truck one container to the port?", body)


def test_a_word_after_a_subject_pronoun_is_the_verb():
    body = "| Service | Zone | Notes |\n| --- | --- | --- |\n| Standard parcel | United Kingdom | import duties paid by the receiver |"
    # "ship" after "we" is what we do, not a thing the passage must name ("ship" is also a noun)
    assert answers("Who pays the import duties when we ship a parcel to the United Kingdom?", body)
    assert not answers("Who pays the import duties on a ship to the United Kingdom?", body)


def test_a_chinese_verb_with_its_direction_is_the_verb():
    from core.answering.mentions import PassageText
    from core.answering.reading import Term

    row = PassageText("| RT-01 | 退回处理 | 每件 | 3元 | 入库并质检 |")
    assert row.mentions(Term("退回来", "word")) and row.mentions(Term("退回去", "word"))
    assert not row.mentions(Term("寄过来", "word"))  # the verb must still be there


def test_a_cell_states_its_value_in_the_unit_its_column_header_gives():
    assert answers("What is the weight limit for a pallet to the Netherlands?", _TARIFF)  # "10.01 to 800" under (kg)
    prices_only = "| Service | Destination | Price (EUR) |\n| --- | --- | --- |\n| Pallet | Netherlands | 89 |"
    assert not answers("What is the weight limit for a pallet to the Netherlands?", prices_only)


def test_a_number_goes_inside_a_range_or_under_a_bound_only_with_a_unit_of_measure():
    from core.answering.mentions import PassageText
    from core.answering.reading import read_question

    eleven = next(t for t in read_question("双十一期间拣货单价会上调多少？").named if t.kind == "number")
    assert not PassageText("| EX-C1 | Express | up to 10 | Order by 15:00 |").mentions(eleven)  # 期 is no unit
    five_kg = next(t for t in read_question("How much is a 5 kg parcel?").named if t.kind == "number")
    assert PassageText("| ST-B2 | Standard parcel | up to 10 kg |").mentions(five_kg)


def test_a_name_in_a_chinese_passage_is_itself_or_the_word_it_translates():
    from core.answering.mentions import PassageText
    from core.answering.reading import Term

    minutes = PassageText("项目启动会：系统可用性不低于 99.9%。")
    assert not minutes.mentions(Term("starter", "name"))  # 启动 means "start", not the Starter plan
    assert PassageText("仓库至上海港集卡运输，每柜1500元。").mentions(Term("shanghai", "name"))
    assert PassageText("Starter 套餐的可用性承诺为 99.5%。").mentions(Term("starter", "name"))


def test_a_capitalised_word_after_a_name_goes_on_with_the_name():
    faq = "问：LM-L7 和 LM-L7 Pro 最多能录入多少个指纹？\n答：两款都最多可录入 100 个指纹。"
    assert answers("L7 Pro 最多能录入多少个指纹？", faq)
    assert not answers("L7 Max 最多能录入多少个指纹？", faq)  # Max names a model, not a limit


def test_a_row_does_not_price_what_it_excludes():
    sheet = ("| 编号 | 服务项目 | 计价单位 | 单价（元） | 备注 |\n| --- | --- | --- | --- | --- |\n"
             "| WH-01 | 常温仓储 | 每托盘每天 | 3.5 | |\n| WH-02 | 恒温仓储 | 每托盘每天 | 6 | 不接收冷冻品 |")
    assert answers("恒温仓储一个托盘每天多少钱？", sheet)
    assert not answers("冷冻仓储一个托盘每天多少钱？", sheet)


def test_how_often_is_answered_by_a_frequency():
    slide = "## Slide 9: Learning\n- Internal tech talks: every second Thursday\n- Tech leads join the talks rota after three months"
    assert "every second Thursday" in quoted("How often are the internal tech talks held?", slide)


def test_a_place_named_in_chinese_is_its_english_name_without_the_dictionary_description():
    # CC-CEDICT glosses 华沙 "Warsaw, capital of Poland": the passage need not say what the dictionary adds
    exchange = "Warsaw's first stock exchange was established in 1817 and continued trading until World War II."
    assert answers("华沙第一家证券交易所是什么时候建立的？", exchange)
    assert not answers("克拉科夫第一家证券交易所是什么时候建立的？", exchange)  # Kraków is another city
    counties = "Southern California is made up of ten counties."
    assert answers("南加州有多少个县？", counties)  # 南 "south": southern is of its family
    assert not answers("北加州有多少个县？", counties)


def test_a_chinese_count_is_a_number_and_one_is_an_article():
    integers = "For example, the multiplication of two integers can be expressed as the set of triples (a, b, c)."
    assert answers("两个整数相乘可以表示为什么？", integers)
    assert not answers("三个整数相乘可以表示为什么？", integers)  # three is not two
    named = {t.text: t.kind for t in read_question("一项研究发现了什么？").named}
    assert "一项" not in named and "研究" in named  # 一项研究: "a study"
    assert {t.text for t in read_question("第三条规定了什么？").named} == {"第三条"}  # an article, named whole


def test_which_two_and_a_name_asked_for_are_the_answers_shape():
    treaties = ("More complete and formal institutions were established through the Treaty of Rome 1957 and "
                "the Maastricht Treaty 1992.")
    assert answers("哪两个条约建立了更正式的机构？", treaties)
    assert answers("Which two treaties established more formal institutions?", treaties)
    route = "State Route 168, the Sierra Freeway, heads east to the city of Clovis."
    assert answers("州168号公路的另一个名字是什么？", route)  # 名字 stands for the answer, as "name" does


def test_a_place_is_its_adjective_across_languages():
    # WordNet's pertainyms: Greek / Greece, Chinese / China; the dictionary gives one form only
    tariff = "| Code | Service | Destination | Price (EUR) |\n| --- | --- | --- | --- |\n| ST-G1 | Standard parcel | Greek islands | 14 |"
    assert answers("寄一个标准包裹到希腊要多少钱？", tariff)
    assert not answers("寄一个标准包裹到意大利要多少钱？", tariff)
    gallery = "展出中国艺术品的 T. T. Tsui 画廊于 1991 年开幕。"
    assert answers("When did the gallery devoted to Chinese art open?", gallery)
    assert not answers("When did the gallery devoted to Japanese art open?", gallery)


def test_a_lone_chinese_numeral_before_its_unit_is_a_number():
    plague = "黑死病肆虐欧洲三年，然后继续席卷俄罗斯。"
    assert answers("The Black Death ravaged Europe for three years, followed by which country?", plague)
    assert not answers("The Black Death ravaged Europe for five years, followed by which country?", plague)


def test_a_chinese_verb_that_only_relates_need_not_be_said_but_an_act_must():
    exchange = "华沙证券交易所设在前波兰统一工人党总部大楼里。"
    assert answers("华沙证券交易所位于哪座大楼？", exchange)  # 位于 is said as 设在
    rules = "第五条 当事人申请监督，人民检察院不收取任何费用。"
    assert not answers("当事人申请监督需要缴纳多少保证金？", rules)  # 保证金 (a deposit) is not said
    assert not judge(read_question("当事人提交多少份申请书？"), ["第五条 当事人申请监督，人民检察院不收取任何费用。"]).answerable


def test_an_acronym_names_what_a_chinese_passage_says_in_full():
    policy = "1997年工党政府组建后，英国正式签署了《社会政策协议》。"
    assert answers("When did the UK sign the Social Policy Agreement?", policy)
    assert not answers("When did the US sign the Social Policy Agreement?", policy)


def test_a_named_place_and_a_span_of_years_answer_where_and_how_long():
    theatre = "Nearby, in Ogród Saski (the Saxon Garden), the Summer Theatre was in operation from 1870 to 1939."
    assert answers("Where was the Summer Theatre?", theatre)
    assert answers("How long was the Summer Theatre in operation?", theatre)
    assert not answers("Where was the Winter Theatre?", theatre)
    assert not answers("Where is the meeting held?", "The meeting is held in January every year.")  # a month is no place


def test_a_foreign_name_is_matched_by_its_sound_across_languages():
    # no dictionary holds 杰克逊维尔 or 普利斯特里: the name is read by its sound, in both directions
    bridges = "Jacksonville has seven bridges over the St. Johns River."
    assert answers("杰克逊维尔有多少座桥？", bridges)
    assert not answers("盖恩斯维尔有多少座桥？", bridges)  # Gainesville is another city
    report = "约瑟夫·普利斯特里于1775年发表了关于这种气体的报告。"
    assert answers("In which year did Priestley publish his report on the gas?", report)
    assert not answers("In which year did Cavendish publish his report on the gas?", report)
    # a name jieba cuts into pieces is one name: 希 / 普 / 尚 / 克斯 is Sheepshanks, not 克斯 alone
    gift = "In 1857 John Sheepshanks gave 233 paintings to the museum."
    assert answers("约翰·希普尚克斯向博物馆捐赠了多少幅画？", gift)
    assert not answers("约翰·康斯特布尔向博物馆捐赠了多少幅画？", gift)
    # with the kind of thing it names after it: 胡格诺派 is the Huguenots
    assert answers("胡格诺派有多少人在1700年迁居弗吉尼亚？",
                   "In 1700 several hundred French Huguenots moved from England to Virginia.")


def test_accents_do_not_cut_a_name():
    assert answers("In which year did Temujin marry?", "Temüjin married Börte in 1178.")
    assert answers("铁木真哪一年结婚？", "Temüjin married Börte in 1178.")


def test_a_chinese_name_said_otherwise_in_english():
    # a proper name's initials: 英国 "United Kingdom" is the UK
    signed = "The UK signed the agreement in 1997."
    assert answers("英国是哪一年签署这项协议的？", signed)
    assert not answers("美国是哪一年签署这项协议的？", signed)
    # the dictionary's own name spelt otherwise (忽必烈 "Khubilai"): by its sound
    invasion = "Kublai invaded Japan in 1274."
    assert answers("忽必烈哪一年入侵日本？", invasion)
    assert not answers("成吉思汗哪一年入侵日本？", invasion)


def test_a_synonym_of_several_words_and_a_noun_suffix():
    plants = "Victoria had three car manufacturing plants."
    assert answers("维多利亚州有几家汽车工厂？", plants)  # 工厂 "factory": a manufacturing plant
    assert answers("How many car factories did Victoria have?", plants)
    assert not answers("How many car dealerships did Victoria have?", plants)
    costumes = "The costume collection contains over 14,000 outfits."
    assert answers("服装收藏品大约有多少件？", costumes)  # 收藏品: 收藏 "collection", 品 makes it a noun
    assert not answers("邮票收藏品大约有多少件？", costumes)


def test_a_latin_name_in_a_chinese_passage_by_the_dictionarys_name_or_its_surname():
    invasion = "1274年，忽必烈第一次入侵日本。"
    assert answers("When did Kublai first invade Japan?", invasion)  # CC-CEDICT spells 忽必烈 "Khubilai"
    assert not answers("When did Hulagu first invade Japan?", invasion)
    gift = "希普尚克斯向博物馆捐赠了233幅画。"
    assert answers("How many paintings did John Sheepshanks give to the museum?", gift)  # the surname only
    assert not answers("How many paintings did John Ruskin give to the museum?", gift)


def test_a_sample_of_n_is_the_answers_shape():
    fish = "Jawless vertebrates include lampreys and hagfish."
    assert answers("What are two examples of jawless vertebrates?", fish)
    assert answers("Name two jawless vertebrates.", fish)
    assert not answers("What are two examples of jawless mammals?", fish)


def test_a_chinese_given_name_and_an_english_word_that_only_sounds_like_a_name():
    score = "辛普森于1964年开始为这部剧配乐。"
    assert answers("达德利·辛普森哪一年开始为这部剧配乐？", score)  # the surname only, as English passages do
    assert not answers("达德利·穆尔哪一年开始为这部剧配乐？", score)
    # 康托尔 (Cantor) is not "Countries": a name is sounded out only against words English does not hold
    assert not answers("康托尔关于瘟疫的理论是什么？", "The plague spread through the Low Countries from 1350.")


def test_a_name_may_open_an_english_question():
    hall = "芝加哥大学的哈钦森公共大厅复刻了牛津大学的基督堂大厅。"
    assert answers("Hutchinson Hall was modelled on which Oxford hall?", hall)
    assert not answers("Ida Noyes Hall was modelled on which Oxford hall?", hall)


def test_a_chinese_name_found_by_sound_in_a_chinese_passages_latin_heading():
    section = "# Jacksonville, Florida\n2010年该市白人占55.1%。"
    assert answers("2010年杰克逊维尔白人的比例是多少？", section)
    assert not answers("2010年盖恩斯维尔白人的比例是多少？", section)


def test_a_contracted_negation_is_not_a_word_and_does_not_hide_the_next_one():
    rule = "Employees may not book business class on flights under six hours."
    assert not answers("Why can't interns book business class on short flights?", rule)  # interns are named
    assert answers("Why can't employees book business class on flights under six hours?", rule)
    assert answers("Which class isn't allowed on flights under six hours?", rule)  # "isn" is not a word


def test_twice_answers_how_many_times():
    cup = "Polonia won the Polish Cup twice, in 1952 and in 2001."
    assert answers("How many times has Polonia won the cup?", cup)
    assert not answers("How many times has Legia won the cup?", cup)


def test_zai_na_yi_nian_asks_for_a_year_not_a_place():
    found = "普利斯特里于1774年发现了氧气。"
    assert answers("普利斯特里在哪一年发现了氧气？", found)
    assert not answers("普利斯特里在哪一年发现了氮气？", found)
    assert asked_for("体罚在哪个国家依然合法？") == "place"  # 在哪个国家 is still "where"


def test_a_time_said_by_what_it_comes_with_answers_when():
    assert answers("When does immunodeficiency occur?", "Immunodeficiency occurs when the immune system is less active than normal.")
    assert answers("When was the Rhineland occupied?", "At the end of World War I, the Rhineland was occupied by the Allies.")
    assert answers("员工什么时候可以申请年假？", "员工入职满一年后可以申请年假。")
    assert answers("When does the warranty start?", "The warranty starts on the day of delivery.")
    assert not answers("When does the warranty start?", "The warranty covers parts and labour.")  # no time said


def test_where_is_answered_by_a_name_after_any_preposition_of_place():
    assert answers("Where does the river flow after Basel?", "After Basel the river flows through the Upper Rhine Plain.")
    assert answers("Where is the day school?", "The day school is located on the University of Chicago campus.")
    assert not answers("Where does the river flow after Basel?", "After Basel the river flows faster.")


def test_centuries_and_decades_are_one_value_in_both_languages():
    reform = "In the 15th century the bishop of Meaux supported reform."
    assert answers("谁在15世纪支持改革？", reform)
    assert not answers("谁在16世纪支持改革？", reform)
    assert answers("Who supported reform in the fifteenth century?", "十五世纪时，莫城主教支持改革。")
    play = "20世纪80年代末，一部舞台剧在伦敦上演。"
    assert answers("Which stage play was put on in London in the 1980s?", play)
    assert answers("Which stage play was put on in London in the '80s?", play)
    assert not answers("Which stage play was put on in London in the 1970s?", play)


MUSEUM = ("# Victoria and Albert Museum\n\nThe museum's first director, Henry Cole, moved the collection from "
          "Marlborough House to the South Kensington site in 1857, where the Brompton Boilers had been built.")
MUSEUM_ZH = "# 维多利亚与艾伯特博物馆\n\n博物馆的首任馆长亨利·科尔于1857年把藏品从马尔博罗大楼迁到南肯辛顿的新址。"


def test_a_long_question_may_leave_one_word_of_its_own_wording_unsaid_never_a_thing():
    long_question = "In what year did the museum's first director begin the journey of the collection from Marlborough House?"
    judged = judge(read_question(long_question), [MUSEUM])
    assert judged.answerable and judged.unsaid == ("journey",)  # said, for the answer's notice
    judged = judge(read_question("博物馆首任馆长亨利·科尔在哪一年完成了藏品从马尔博罗大楼的搬迁？"), [MUSEUM_ZH])
    assert judged.answerable and judged.unsaid == ("完成",)
    # a person, a thing or a name the passage lacks is what is asked about, however long the question
    assert not answers(long_question.replace("director", "curator"), MUSEUM)
    assert not answers("博物馆首任馆长亨利·科尔在哪一年把藏品从马尔博罗大楼迁到南肯辛顿的雕塑馆？", MUSEUM_ZH)
    assert not answers(long_question.replace("Marlborough House", "Bethnal Green"), MUSEUM)
    # a short question gets no leeway: its one word is the point of it
    assert not answers("When did the journey of the collection begin?", MUSEUM)
    # nor a passage that does not state the value asked for
    when = "When did the museum's first director begin the journey of the collection from Marlborough House?"
    assert answers(when, MUSEUM) and not answers(when, MUSEUM.replace(" in 1857", ""))
    # a passage that says every word is answered with nothing unsaid
    assert judge(read_question("In what year did the museum's first director move the collection from Marlborough House?"),
                 [MUSEUM]).unsaid == ()


def test_wordnet_tells_a_thing_from_an_idea_by_its_first_noun_sense():
    from core.retrieval.bilingual import wordnet

    things = [wordnet().names_a_thing(w) for w in ("intern", "laptop", "curator", "museum", "population")]
    ideas = [wordnet().names_a_thing(w) for w in ("journey", "inability", "goal", "arrival", "bequest")]
    assert all(things) and not any(ideas) and wordnet().names_a_thing("qwzx") is None


@pytest.mark.slow
def test_the_answer_to_a_long_question_says_the_word_its_passage_does_not_use(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    engine = make_engine(data_dir, embedding={"model": "multilingual-e5-small"})
    try:
        engine.create_kb(ADMIN, "museum")
        assert engine.ingest(ADMIN, "museum", [md("museum.md", MUSEUM)])[0].status == "indexed"
        configure(engine, strict={"rag_strict_mode": True}, llm={"provider": "extractive"})
        question = "In what year did the museum's first director begin the journey of the collection from Marlborough House?"
        answer = engine.ask(ADMIN, question, kbs=["museum"], temporary=True)
        assert answer.hit and "1857" in answer.text and answer.citations
        assert any("journey" in n and "does not use" in n for n in answer.notices), answer.notices
        refused = engine.ask(ADMIN, question.replace("director", "curator"), kbs=["museum"], temporary=True)
        assert not refused.hit and any("curator" in n for n in refused.notices), refused.notices
    finally:
        engine.close()


def test_the_verb_of_a_wh_subject_and_a_verb_going_on_are_not_things_named():
    def named(question: str) -> list[str]:
        return [t.text for t in read_question(question).named]

    assert "runs" not in named("What river runs alongside Jacksonville?")  # the subject's verb, no auxiliary
    assert "houses" not in named("Which department houses the works on paper?")
    assert "happening" not in named("What is happening to the average age of teachers in Wales?")
    # a plural noun stays named: before a verb of its own, or further into the question
    assert "brands" in named("What car brands are made in Broadmeadows?")
    assert "interns" in named("What's the yearly learning budget for engineering interns?")
    # where it is, what it is called: the answer's kind, as "name" and "type" are
    assert "location" not in named("Where was the V&A transferred to from its original location at Marlborough House?")
    assert "nickname" not in named("What is the nickname for the Delta in the Netherlands?")


def test_letters_joined_by_an_ampersand_are_one_name():
    question = read_question("Who was the V&A's first director?")
    assert "v&a" in [t.text for t in question.named]  # its single letters were dropped: any director passed
    assert not judge(question, ["The deputy director of the Office of Manned Space Flight was Joseph Shea."]).answerable
    assert judge(question, ["Henry Cole was the V&A's first director."]).answerable
    assert judge(read_question("谁是V＆A的第一任馆长？"), ["亨利·科尔是V＆A的第一任馆长。"]).answerable


def test_only_the_best_four_passages_found_may_answer():
    from core.answering.answerable import JUDGED_PASSAGES

    related = ["Sick leave of up to 3 consecutive days needs no certificate."] * 4
    answering = "Every employee receives 15 days of paid annual leave per calendar year."
    question = read_question("How many days of paid annual leave does an employee get?")
    assert JUDGED_PASSAGES == 4
    assert judge(question, related[:3] + [answering] + related[3:]).passage == 3
    # fifth found: below the passages judged, it is context, and the question is refused
    assert not judge(question, related + [answering]).answerable


TARIFF_ZH = ("| 编号 | 服务项目 | 计价单位 | 单价（元） | 备注 |\n| --- | --- | --- | --- | --- |\n"
             "| PS-02 | 仓库至上海港集卡运输 | 每柜 | 1500 | 周末及法定节假日加收300元 |")
SLA_EN = ("## 2. Availability commitment\nCobalt will make the Service available with a Monthly Uptime Percentage of:\n\n"
          "| Plan | Deployment | Monthly Uptime commitment |\n| --- | --- | --- |\n| Starter | single node | 99.5% |\n"
          "| Business | primary with one standby | 99.95% |")


def test_the_workplace_glossary_gives_the_words_documents_use_that_the_dictionary_lacks():
    # 加收 (a surcharge) and 可用性 (availability) are not in CC-CEDICT; core/retrieval/workplace_glossary.tsv has them
    assert answers("Is there a surcharge for port container transport on a public holiday?", TARIFF_ZH)
    assert answers("Starter 套餐每月的可用性承诺是多少？", SLA_EN)
    # what the row does not name stays refused: a surcharge is not a discount, Starter not Developer
    assert not answers("Is there a discount for port container transport on a public holiday?", TARIFF_ZH)
    assert not answers("Developer 套餐每月的可用性承诺是多少？", SLA_EN)


def test_every_line_of_the_workplace_glossary_is_a_chinese_word_with_english_senses():
    from importlib import resources

    from core.retrieval.bilingual import content_words, has_chinese

    text = resources.files("core.retrieval").joinpath("workplace_glossary.tsv").read_text(encoding="utf-8")
    entries = [line.split("\t") for line in text.splitlines() if line.strip() and not line.startswith("#")]
    assert len(entries) > 200
    for entry in entries:
        assert len(entry) == 2 and has_chinese(entry[0]) and not has_chinese(entry[1]), entry
        assert all(content_words(sense) for sense in entry[1].split(";")), entry


def test_a_clock_time_is_the_time_of_day_it_names():
    express = ("| Code | Service | Zone | Price (EUR) |\n| --- | --- | --- | --- |\n"
               "| EX-A1 | Express before 12:00 | A – Netherlands | 14.9 |\n| EX-A2 | Express | A – Netherlands | 9.9 |")
    assert answers("How much is express before noon in zone A?", express)
    assert answers("A区中午前送达的快递多少钱？", express)
    # another hour is not noon
    assert not answers("How much is express before midnight in zone A?", express)
