"""Strict A/B compare: one answer column, batch question parsing, batch table and summary."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.answering.questions import parse_questions as parse_batch
from dashboard.chat_widgets import render_citations, render_meta, total_ms
from dashboard.i18n import t
from dashboard.page import fmt_score

MAX_BATCH = 200


def answer_column(title: str, answer) -> None:
    st.subheader(title)
    render_meta(answer.mode, answer.hit, answer.llm_called, answer.timings_ms)
    st.markdown(answer.text or answer.error or "—")
    for notice in answer.notices:
        st.caption(f"ⓘ {notice}")
    if answer.citations:
        st.markdown(f"**{t('ab.citations')}**")
        render_citations(answer.citations)
    st.markdown(f"**{t('ab.retrieved')}**")
    if not answer.retrieved:
        st.caption(t("ab.nothing_retrieved"))
        return
    st.dataframe([{
        t("col.final"): fmt_score(r.get("score")),
        t("col.kept"): "✓" if r.get("passed") else "—",
        t("col.dense"): fmt_score(r.get("dense")),
        t("col.bm25"): fmt_score(r.get("bm25")),
        t("col.fused"): fmt_score(r.get("fused")),
        t("col.text"): str(r.get("text", ""))[:200],
        t("col.file"): " · ".join(x for x in (r.get("source_name", ""), r.get("location", "")) if x),
    } for r in answer.retrieved], hide_index=True, width="stretch",
        column_config={t("col.text"): st.column_config.TextColumn(width="large")})


def parse_questions(name: str, data: bytes) -> list[str]:
    return parse_batch(name, data, limit=MAX_BATCH)


def batch_frame(comparisons: list) -> pd.DataFrame:
    return pd.DataFrame([{
        "question": c.question,
        "normal_hit": c.normal.hit, "strict_hit": c.strict.hit,
        "normal_llm_called": c.normal.llm_called, "strict_llm_called": c.strict.llm_called,
        "strict_refused": not c.strict.hit,
        "normal_ms": round(total_ms(c.normal.timings_ms), 1), "strict_ms": round(total_ms(c.strict.timings_ms), 1),
        "normal_citations": len(c.normal.citations), "strict_citations": len(c.strict.citations),
        "normal_answer": c.normal.text, "strict_answer": c.strict.text,
    } for c in comparisons])


def summary_frame(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for mode in ("normal", "strict"):
        rows.append({"mode": t(f"mode.{mode}"), t("ab.hits"): int(df[f"{mode}_hit"].sum()),
                     t("ab.refusals"): int((~df[f"{mode}_hit"]).sum()) if mode == "strict" else 0,
                     t("ab.model_calls"): int(df[f"{mode}_llm_called"].sum()),
                     t("ab.mean_ms"): round(float(df[f"{mode}_ms"].mean()), 1)})
    return pd.DataFrame(rows)
