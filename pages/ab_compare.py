"""Strict Mode A/B compare: one question in normal and strict mode side by side, or a batch
(pasted or CSV/JSONL) → table, summary chart, download."""

import streamlit as st

from dashboard.ab_widgets import answer_column, batch_frame, parse_questions, summary_frame
from dashboard.errors import guard
from dashboard.i18n import t
from dashboard.page import page_context

engine, actor = page_context()
st.title(t("nav.ab"))
st.caption(t("ab.intro"))

with guard():
    names = {kb.id: kb.name for kb in engine.list_kbs(actor)}
    kbs = st.multiselect(t("chat.kbs"), list(names), format_func=names.get, key="ab_kbs",
                         placeholder=t("chat.kbs_all")) or None
    web_enabled = engine.settings().web_search.enable_web_search
    web = web_enabled and st.toggle(t("ab.web"), key="ab_web")
    if web_enabled:
        st.caption(t("ab.web_strict"))
    single, batch = st.tabs([t("ab.single"), t("ab.batch")])

with single, guard():
    with st.form("ab_single"):
        question = st.text_area(t("ab.question"), key="ab_question", height=80)
        go = st.form_submit_button(t("ab.compare"), type="primary", icon=":material/compare_arrows:")
    if go and question.strip():
        with st.spinner(t("ab.running")):
            st.session_state["ab_result"] = engine.compare(actor, question.strip(), kbs=kbs, web=web)
    result = st.session_state.get("ab_result")
    if result is not None:
        left, right = st.columns(2, border=True)
        with left:
            answer_column(t("ab.normal"), result.normal)
        with right:
            answer_column(t("ab.strict"), result.strict)

with batch, guard():
    with st.form("ab_batch"):
        pasted = st.text_area(t("ab.paste"), key="ab_paste", height=120)
        upload = st.file_uploader(t("ab.upload"), type=["csv", "jsonl", "ndjson", "txt"], key="ab_upload")
        run = st.form_submit_button(t("ab.run_batch"), type="primary", icon=":material/playlist_play:")
    if run:
        questions = parse_questions(upload.name, upload.getvalue()) if upload else parse_questions("pasted.txt", pasted.encode())
        if not questions:
            st.warning(t("ab.no_questions"))
        else:
            with st.spinner(t("ab.running_batch", n=len(questions))):
                st.session_state["ab_batch_result"] = batch_frame(engine.compare_batch(actor, questions, kbs=kbs, web=web))
    df = st.session_state.get("ab_batch_result")
    if df is not None:
        summary = summary_frame(df)
        st.dataframe(summary, hide_index=True, width="stretch")
        st.bar_chart(summary.drop(columns=[t("ab.mean_ms")]), x="mode", stack=False, height=240)
        st.bar_chart(summary, x="mode", y=t("ab.mean_ms"), height=200)
        st.dataframe(df, hide_index=True, width="stretch")
        c1, c2 = st.columns(2)
        c1.download_button(t("ab.download_csv"), df.to_csv(index=False).encode("utf-8-sig"), "ab-compare.csv",
                           "text/csv", icon=":material/download:")
        c2.download_button(t("ab.download_jsonl"), df.to_json(orient="records", lines=True, force_ascii=False).encode(),
                           "ab-compare.jsonl", "application/jsonl", icon=":material/download:")
