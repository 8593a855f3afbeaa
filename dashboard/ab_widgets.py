"""Strict A/B compare pieces: one answer column, the batch summary, per-question side-by-side
cards with outcomes, and the exports."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.answering.questions import BatchItem, parse_batch
from core.answering.report import ModeSummary, html_report, summarise, summarise_languages, to_csv, to_jsonl
from dashboard.chat_widgets import keep_line_breaks, render_citations, render_meta, render_notices
from dashboard.i18n import t
from dashboard.page import fmt_score, fmt_where

MAX_BATCH = 200
PAGE_SIZE = 20
OUTCOME_STYLE = {"correct": ("green", ":material/check_circle:"), "refused": ("orange", ":material/block:"),
                 "wrong": ("red", ":material/cancel:")}


def answer_column(title: str, answer) -> None:
    st.subheader(title)
    render_meta(answer, answer.mode, answer.llm_called, answer.timings_ms)
    st.markdown(keep_line_breaks(answer.text or answer.error or "—"))
    render_notices(answer.notices)
    if answer.citations:
        st.markdown(f"**{t('ab.citations')}**")
        render_citations(answer.citations)
    st.markdown(f"**{t('ab.retrieved')}**")
    if not answer.retrieved:
        st.caption(t("ab.nothing_retrieved"))
        return
    st.dataframe([{
        t("col.file"): " · ".join(x for x in (r.get("source_name", ""), fmt_where(r)) if x),
        t("col.final"): fmt_score(r.get("score")),
        t("col.kept"): "✓" if r.get("passed") else "—",
        t("col.dense"): fmt_score(r.get("dense")),
        t("col.bm25"): fmt_score(r.get("bm25")),
        t("col.fused"): fmt_score(r.get("fused")),
        t("col.text"): str(r.get("text", ""))[:200],
    } for r in answer.retrieved], hide_index=True, width="stretch",
        column_config={t("col.text"): st.column_config.TextColumn(width="large")})


def parse_items(name: str, data: bytes) -> list[BatchItem]:
    return parse_batch(name, data, limit=MAX_BATCH)


def summary_frame(summary: list[ModeSummary]) -> pd.DataFrame:
    return pd.DataFrame([{
        t("ab.mode"): t(f"mode.{s.mode}"), t("ab.hits"): s.hits, t("ab.refusals"): s.refusals,
        t("ab.model_calls"): s.model_calls, t("ab.as_expected"): f"{s.as_expected} / {s.scored}" if s.scored else "—",
        t("ab.correct"): s.correct if s.scored else None, t("ab.wrong"): s.wrong if s.scored else None,
        t("ab.mean_ms"): s.mean_ms,
    } for s in summary])


def summary(rows: list[dict]) -> None:
    """Headline numbers, one horizontal chart (labels read left to right), the table."""
    modes = summarise(rows)
    with st.container(horizontal=True, gap="large"):
        for s in modes:
            if s.scored:
                st.metric(t("ab.as_expected_mode", mode=t(f"mode.{s.mode}")), f"{s.as_expected} / {s.scored}",
                          width="content")
        for s in modes:
            st.metric(t("ab.refusals_mode", mode=t(f"mode.{s.mode}")), f"{s.refusals} / {s.questions}", width="content")
        st.metric(t("ab.differ"), sum(r["modes_differ"] for r in rows), width="content")
    long = []
    for s in modes:
        measures = [(t("ab.hits"), s.hits), (t("ab.refusals"), s.refusals), (t("ab.model_calls"), s.model_calls)]
        if s.scored:
            measures += [(t("ab.correct"), s.correct), (t("ab.wrong"), s.wrong)]
        long += [{t("ab.measure"): m, t("ab.mode"): t(f"mode.{s.mode}"), t("ab.questions"): v} for m, v in measures]
    st.bar_chart(pd.DataFrame(long), x=t("ab.measure"), y=t("ab.questions"), color=t("ab.mode"), horizontal=True,
                 stack=False, height=70 + 34 * len(long), sort=False)
    st.dataframe(summary_frame(modes), hide_index=True, width="stretch")
    pairs = summarise_languages(rows)
    if pairs:  # same-language rows beside those asked in the other language than the document's
        st.dataframe(pd.DataFrame([{
            t("ab.languages"): p.languages, t("ab.questions"): p.questions,
            t("ab.as_expected_mode", mode=t("mode.normal")): f"{p.normal_as_expected} / {p.questions}",
            t("ab.as_expected_mode", mode=t("mode.strict")): f"{p.strict_as_expected} / {p.questions}",
        } for p in pairs]), hide_index=True, width="stretch", key="ab_languages")


def _side(row: dict, mode: str) -> None:
    with st.container(horizontal=True, gap="small"):
        outcome = row[f"{mode}_outcome"]
        if outcome:
            color, icon = OUTCOME_STYLE[outcome]
            st.badge(t(f"ab.outcome.{outcome}"), color=color, icon=icon)
        st.badge(t("chat.hit") if row[f"{mode}_hit"] else t("chat.no_hit"), color="blue" if row[f"{mode}_hit"] else "gray")
        if row.get(f"{mode}_curated"):
            st.badge(t("ab.curated"), color="violet", icon=":material/verified:")
        if row.get(f"{mode}_weak"):
            st.badge(t("ab.weak"), color="orange", icon=":material/help:")
        st.badge(t("chat.llm_called") if row[f"{mode}_llm_called"] else t("chat.llm_not_called"), color="gray")
        st.badge(f"{row[f'{mode}_ms']:.0f} ms", color="gray", icon=":material/timer:")
    st.markdown(keep_line_breaks(row[f"{mode}_answer"] or "—"))
    if row[f"{mode}_citations"]:
        st.caption("  \n".join(row[f"{mode}_citations"].split("; ")))


def question_cards(rows: list[dict]) -> None:
    only_differ = st.toggle(t("ab.only_differ"), key="ab_only_differ")
    shown = [r for r in rows if r["modes_differ"]] if only_differ else rows
    st.caption(t("ab.showing", shown=len(shown), total=len(rows)))
    pages = max(1, -(-len(shown) // PAGE_SIZE))
    page = st.number_input(t("ab.page", n=pages), 1, pages, 1, key="ab_page") if pages > 1 else 1
    for i, row in enumerate(shown[(page - 1) * PAGE_SIZE: page * PAGE_SIZE], start=(page - 1) * PAGE_SIZE + 1):
        with st.container(border=True, key=f"ab_q_{i}"):
            st.markdown(f"**{i}. {row['question']}**")
            if row["expected"]:
                expected = t("ab.not_covered") if row["expected"] == "-" else row["expected"]
                st.caption(f"{t('ab.expected')}: {expected}")
            left, right = st.columns(2, border=True)
            with left:
                st.markdown(f"**{t('ab.normal')}**")
                _side(row, "normal")
            with right:
                st.markdown(f"**{t('ab.strict')}**")
                _side(row, "strict")


def exports(rows: list[dict]) -> None:
    labels = {"normal": t("ab.normal"), "strict": t("ab.strict"), "question": t("ab.question"),
              "expected": t("ab.expected"), "hits": t("ab.hits"), "refusals": t("ab.refusals"),
              "model_calls": t("ab.model_calls"), "mean_ms": t("ab.mean_ms"), "as_expected": t("ab.as_expected"),
              "correct": t("ab.outcome.correct"), "refused": t("ab.outcome.refused"), "wrong": t("ab.outcome.wrong"),
              "hit": t("chat.hit"), "no_hit": t("chat.no_hit"), "model": t("chat.llm_called"),
              "no_model": t("chat.llm_not_called"), "weak": t("ab.weak"), "questions": t("ab.questions"),
              "modes_differ": t("ab.differ"), "generated": t("ab.generated"), "not_covered": t("ab.not_covered"),
              "languages": t("ab.languages")}
    with st.container(horizontal=True):
        st.download_button(t("ab.download_html"), lambda: html_report(rows, title=t("nav.ab"), labels=labels).encode("utf-8"),
                           "ab-compare.html", "text/html", icon=":material/description:", type="primary",
                           on_click="ignore", key="ab_dl_html")
        st.download_button(t("ab.download_csv"), lambda: to_csv(rows), "ab-compare.csv", "text/csv",
                           icon=":material/download:", on_click="ignore", key="ab_dl_csv")
        st.download_button(t("ab.download_jsonl"), lambda: to_jsonl(rows), "ab-compare.jsonl", "application/jsonl",
                           icon=":material/download:", on_click="ignore", key="ab_dl_jsonl")
