"""Retrieval-test panel, reindex, and the charts of the Knowledge Bases page."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import Engine
from core.types import Actor
from dashboard import jobs_panel
from dashboard.filter_box import filter_box, typed_where
from dashboard.highlight import highlight_html
from dashboard.i18n import lang_key, t, worded
from dashboard.page import fmt_score, fmt_where
from dashboard.settings_form import option_label

SEARCH_MODES = ("hybrid", "dense", "bm25", "hybrid+rerank")
CHART_FILE_CAP = 50  # chunk-length chart reads at most this many files (it scrolls their chunks)


def mode_in_force_limits(engine: Engine) -> tuple[int, float]:
    """(max results, min similarity) of the answering mode in force: what chat retrieves with."""
    s = engine.settings()
    if s.strict.rag_strict_mode:
        return s.strict.rag_strict_max_results, s.strict.rag_strict_min_similarity
    return s.retrieval.rag_max_results, s.retrieval.rag_min_similarity


def retrieval_test(engine: Engine, actor: Actor, kb) -> None:
    top_k_default, min_default = mode_in_force_limits(engine)
    search_mode = engine.settings().retrieval.mode
    st.caption(t("rtest.defaults", n=top_k_default, min=f"{min_default:.2f}"))
    with st.form(f"rtest_{kb.id}"):
        query = st.text_input(t("rtest.query"), key="rtest_query")
        c1, c2, c3 = st.columns(3)
        mode = c1.selectbox(t("rtest.mode"), SEARCH_MODES, index=SEARCH_MODES.index(search_mode)
                            if search_mode in SEARCH_MODES else 0, key=lang_key("rtest_mode"),
                            format_func=worded(SEARCH_MODES, lambda m: option_label("retrieval", "mode", m)))
        # keyed by the defaults: a saved settings change shows here at once (a widget keeps its first value)
        top_k = c2.number_input(t("rtest.top_k"), 1, 50, int(top_k_default), key=f"rtest_top_k_{top_k_default}")
        min_score = c3.number_input(t("rtest.min_score"), 0.0, 1.0, float(min_default), step=0.05,
                                    key=f"rtest_min_{min_default}")
        # the same metadata filter as Chat's (a bad one: the page's guard() says why)
        typed_filter = filter_box("rtest_filter")
        submitted = st.form_submit_button(t("rtest.run"), icon=":material/search:", type="primary")
    if not submitted or not query.strip():
        return
    where = typed_where(typed_filter)
    result = engine.search(actor, query, [kb.id], mode=mode, top_k=int(top_k), min_score=float(min_score), where=where)
    for notice in result.notices:
        st.info(notice)
    timing = ", ".join(t("timing.ms", name=_step(k), ms=f"{v:.1f}") for k, v in result.timings_ms.items())
    shown, below = len(result.hits) + len(result.below_threshold), len(result.below_threshold)
    st.caption(t("rtest.shown", shown=shown, n=len(result.hits), below=below, min=f"{min_score:.2f}", timing=timing)
               if below else t("rtest.shown_all_pass", shown=shown, min=f"{min_score:.2f}", timing=timing))
    if not result.hits:
        st.warning(t("rtest.no_hits"))
    hits = result.hits + result.below_threshold
    st.dataframe(_hit_rows(hits, len(result.hits)), hide_index=True, width="stretch")
    for i, h in enumerate(hits):
        kept = i < len(result.hits)
        with st.container(border=True, key=f"rtest_hit_{i}"):
            where = " · ".join(x for x in (fmt_where(h), " › ".join(h.heading_path)) if x)
            st.markdown(f"**#{i + 1} · {h.source_name}**" + (f" · {where}" if where else "")
                        + f" · {t('col.final')} {fmt_score(h.score)}" + ("" if kept else f" · {t('rtest.below')}"))
            # the whole passage, wrapped, with the query's terms marked (readable on a phone too)
            st.markdown(f"<div class='ragdesk-passage'>{highlight_html(h.text, query)}</div>", unsafe_allow_html=True)


def _step(name: str) -> str:
    """A timed step of the search in words (a step added later shows its own name)."""
    text = t(f"timing.{name}")
    return name.replace("_", " ") if text == f"timing.{name}" else text


def _hit_rows(hits: list, n_kept: int) -> list[dict]:
    return [{
        "#": i + 1,
        t("col.file"): h.source_name,
        t("col.where"): " · ".join(x for x in (fmt_where(h), " › ".join(h.heading_path)) if x),
        t("col.final"): fmt_score(h.score),
        t("col.kept"): "✓" if i < n_kept else "—",
        t("col.dense"): fmt_score(h.dense),
        t("col.bm25"): fmt_score(h.bm25),
        t("col.fused"): fmt_score(h.fused),
        t("col.rerank"): fmt_score(h.rerank),
    } for i, h in enumerate(hits)]


def reindex_panel(engine: Engine, actor: Actor, kb, writable: bool) -> None:
    st.caption(t("kbs.index_info", embedder=kb.embedder_id or "—", dim=kb.dimension, version=kb.collection_version))
    current = engine.settings()
    if kb.embedder_id and kb.embedder_id != engine.embedder().id:
        st.warning(t("kbs.reindex_needed_embedder"))
    elif kb.chunking and kb.chunking != engine.kb_chunking(kb).model_dump():
        st.info(t("kbs.reindex_needed_chunking"))
    if writable and st.button(t("kbs.reindex"), icon=":material/autorenew:", disabled=jobs_panel.busy(kb.id),
                              key=f"reindex_{kb.id}"):
        jobs_panel.track("reindex", kb.id, engine.submit_reindex(actor, kb.id), kb_name=kb.name)
        st.rerun()
    jobs_panel.render_work(engine, actor, kb.id, "reindex")  # progress, cancel and the result, here


def charts(engine: Engine, actor: Actor, kb, files: list) -> None:
    c1, c2 = st.columns(2)
    with c1:
        st.markdown(f"**{t('charts.chunk_lengths')}**")
        indexed = [f for f in files if f.status == "indexed"][:CHART_FILE_CAP]
        lengths = [len(c["text"]) for f in indexed for c in engine.file_chunks(actor, f.id)]
        if lengths:
            counts = pd.cut(pd.Series(lengths), bins=min(20, max(1, len(set(lengths))))).value_counts(sort=False)
            frame = pd.DataFrame({t("charts.length"): [f"{int(b.left)}–{int(b.right)}" for b in counts.index],
                                  t("charts.chunks"): counts.values})
            st.bar_chart(frame, x=t("charts.length"), y=t("charts.chunks"), height=260, sort=False)
        else:
            st.caption(t("kbs.no_indexed"))
    with c2:
        st.markdown(f"**{t('charts.vectors_per_kb')}**")
        rows = [{t("charts.kb"): k.name, t("charts.vectors"): engine.kb_stats(actor, k.id)["vectors"]}
                for k in engine.list_kbs(actor)]
        st.bar_chart(pd.DataFrame(rows), x=t("charts.kb"), y=t("charts.vectors"), height=260, horizontal=True)
