"""Strict Mode A/B compare: one question in normal and strict mode side by side, or a batch
(pasted, CSV or JSONL, with optional expected answers) → summary, per-question cards scored per
mode, a filter for the questions where the modes differ, HTML / CSV / JSONL exports. The metadata
filter box (as on Chat) scopes both sides."""

import streamlit as st

from core.answering.report import comparison_rows
from core.demo import demo_questions
from dashboard.ab_widgets import answer_column, exports, parse_items, question_cards, summary
from dashboard.assistant_picker import assistant_picker
from dashboard.errors import guard
from dashboard.filter_box import filter_box, typed_where
from dashboard.i18n import t
from dashboard.page import page_context
from dashboard.uploads import upload_limit_mb

engine, actor = page_context()
st.title(t("nav.ab"))
if not engine.may_compare(actor):  # the engine refuses the compare too; opened by URL, say why
    st.error(t("ab.not_allowed"), icon=":material/lock:")
    st.stop()
st.caption(t("ab.intro"))

with guard():
    names = {kb.id: kb.name for kb in engine.list_kbs(actor)}
    assistant = assistant_picker(engine, actor, key="ab_assistant")  # issue 35: its preset on both sides
    kbs = None if assistant else st.multiselect(t("chat.kbs"), list(names), format_func=names.get, key="ab_kbs",
                                                placeholder=t("chat.kbs_all")) or None
    # as on Chat: a filter for a comparison over chosen knowledge bases (an assistant carries its own)
    typed_filter = "" if assistant else filter_box("ab_filter")
    web_enabled = engine.settings().web_search.enable_web_search
    web = web_enabled and st.toggle(t("ab.web"), key="ab_web")
    if web_enabled:
        st.caption(t("ab.web_strict"))

    def compare_one(question: str):
        if assistant:
            return engine.compare_assistant(actor, assistant, question, web=web)
        # both sides under the same filter; a malformed one: guard() says why
        return engine.compare(actor, question, kbs=kbs, web=web, where=typed_where(typed_filter))

    single, batch = st.tabs([t("ab.single"), t("ab.batch")])

with single, guard():
    with st.form("ab_single"):
        question = st.text_area(t("ab.question"), key="ab_question", height=80)
        go = st.form_submit_button(t("ab.compare"), type="primary", icon=":material/compare_arrows:")
    if go and question.strip():
        with st.spinner(t("ab.running")):
            st.session_state["ab_result"] = compare_one(question.strip())
    result = st.session_state.get("ab_result")
    if result is not None:
        left, right = st.columns(2, border=True)
        with left:
            answer_column(t("ab.normal"), result.normal)
        with right:
            answer_column(t("ab.strict"), result.strict)

with batch, guard():
    with st.form("ab_batch"):
        pasted = st.text_area(t("ab.paste"), key="ab_paste", height=140, help=t("ab.paste_help"))
        upload = st.file_uploader(t("ab.upload"), type=["csv", "jsonl", "ndjson", "txt"], key="ab_upload",
                                  help=t("ab.upload_help"), max_upload_size=upload_limit_mb(engine))
        with st.container(horizontal=True):
            run = st.form_submit_button(t("ab.run_batch"), type="primary", icon=":material/playlist_play:")
            # a second submit button: a plain button's rerun would switch the tabs back to the first one
            demo_set = demo_questions()
            demo = st.form_submit_button(t("ab.use_demo"), icon=":material/auto_awesome:", help=t(
                "ab.use_demo_help", n=len(demo_set), off=sum(i.expected == "-" for i in demo_set)))
    items = None
    if demo:
        items = demo_set
    elif run:
        items = parse_items(upload.name, upload.getvalue()) if upload else parse_items("pasted.txt", pasted.encode())
    if items is not None:
        if not items:
            st.warning(t("ab.no_questions"))
        else:
            progress = st.progress(0.0, text=t("ab.running_batch", n=len(items)))
            comparisons = []
            for n, item in enumerate(items, 1):  # one at a time, so the bar moves
                comparisons.append(compare_one(item.question))
                progress.progress(n / len(items), text=t("ab.running_batch_n", done=n, n=len(items)))
            progress.empty()
            st.session_state["ab_rows"] = comparison_rows(comparisons, [i.expected for i in items])
    rows = st.session_state.get("ab_rows")
    if rows:
        exports(rows)
        summary(rows)
        question_cards(rows)
        with st.expander(t("ab.as_table"), icon=":material/table:"):
            st.dataframe(rows, hide_index=True, width="stretch")
