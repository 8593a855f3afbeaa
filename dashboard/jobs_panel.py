"""Background work (uploads, reindex) with live progress and cancel.

The page submits work to the engine (it runs in the engine's worker thread); the Future is
kept in the session, and a fragment polls the engine's job rows once a second until the
work is done, then reruns the page once so the results and the file list show. Each
submitted file has its row at once ("waiting") until its job starts.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass, field

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.errors import show_error
from dashboard.i18n import t

KEY = "background_work"


@dataclass
class Work:
    kind: str  # ingest | reindex
    kb_id: str
    future: Future
    names: list[str] = field(default_factory=list)
    kb_name: str = ""
    started: float = field(default_factory=time.time)


def track(kind: str, kb_id: str, future: Future, names: list[str] | None = None, kb_name: str = "") -> None:
    st.session_state.setdefault(KEY, []).append(Work(kind, kb_id, future, list(names or []), kb_name))


def _work(kind: str, kb_id: str | None = None) -> list[Work]:
    return [w for w in st.session_state.get(KEY, []) if w.kind == kind and (kb_id is None or w.kb_id == kb_id)]


def _bar_text(what: str, message: str, done: int, total: int) -> str:
    text = f"{what} — {message}" if message else what
    return f"{text} ({done}/{total})" if total else text  # no "(0/0)" before the work is counted


def _progress_rows(engine: Engine, actor: Actor, kb_id: str, kind: str, waiting: list[str]) -> None:
    names = {f.id: f.name for f in engine.list_files(actor, kb_id)} if kind == "ingest" else {}
    shown: set[str] = set()
    for job in engine.jobs(actor, active_only=True):
        if job.kb_id != kb_id or job.kind != kind:
            continue
        what = names.get(job.file_id or "", t("jobs.reindex") if kind == "reindex" else t("jobs.file"))
        shown.add(what)
        cols = st.columns([5, 1], vertical_alignment="bottom")
        fraction = min(job.progress_done / job.progress_total, 1.0) if job.progress_total else 0.0
        cols[0].progress(fraction, text=_bar_text(what, job.message, job.progress_done, job.progress_total))
        if job.cancel_requested:
            cols[1].caption(t("jobs.cancelling"))
        elif cols[1].button(t("jobs.cancel"), key=f"cancel_{job.id}", icon=":material/cancel:"):
            engine.cancel_job(actor, job.id)
            st.toast(t("jobs.cancel_sent"))
    for name in waiting:
        if name not in shown:
            st.progress(0.0, text=f"{name} — {t('jobs.waiting')}")


@st.fragment(run_every=1.0)
def _live(engine: Engine, actor: Actor, kb_id: str, kind: str) -> None:
    pending = [w for w in _work(kind, kb_id) if not w.future.done()]
    if not pending:
        st.rerun()  # everything finished: one full rerun shows results and the new file list
    if kind == "ingest":
        names = [n for w in pending for n in w.names]
        st.caption(t("jobs.running", files=len(names)))
    else:
        names = [t("jobs.reindex")]
    _progress_rows(engine, actor, kb_id, kind, names)


def _show_ingest(work: Work, result: list) -> None:
    ok = sum(1 for r in result if r.ok)
    where = work.kb_name or work.kb_id
    if ok == len(result):
        st.success(t("jobs.ingest_done", ok=ok, n=len(result), kb=where), icon=":material/check_circle:")
    else:
        st.warning(t("jobs.ingest_done", ok=ok, n=len(result), kb=where), icon=":material/warning:")
    for r in result:  # in full: the file table's error column is narrow
        if not r.ok:
            (st.info if r.status == "cancelled" else st.error)(f"**{r.name}** — {t('status.' + r.status)}: {r.error}")
        elif r.warnings:
            st.caption(f"{r.name}: " + "; ".join(r.warnings))


def _show_reindex(result) -> None:
    text = t("jobs.reindex_done", status=t(f"jobs.state.{result.status}"), files=result.files, chunks=result.chunks)
    if result.status == "done":
        st.success(text, icon=":material/check_circle:")
    else:
        st.warning(text + (f" — {result.error}" if result.error else ""), icon=":material/warning:")
    for name, err in result.file_errors.items():
        st.error(f"**{name}**: {err}")


def render_work(engine: Engine, actor: Actor, kb_id: str, kind: str) -> None:
    """Results of finished work of this kind (shown once), then live progress of running work.
    Upload results are shown for every knowledge base, each naming where its files went."""
    for work in [w for w in _work(kind, None if kind == "ingest" else kb_id) if w.future.done()]:
        st.session_state[KEY].remove(work)
        try:
            result = work.future.result()
        except Exception as exc:  # the engine's error for the whole batch (e.g. reindex needed)
            show_error(exc)
            continue
        _show_ingest(work, result) if kind == "ingest" else _show_reindex(result)
    if any(not w.future.done() for w in _work(kind, kb_id)):
        _live(engine, actor, kb_id, kind)
    else:
        _progress_rows(engine, actor, kb_id, kind, [])  # work started elsewhere (another session, the CLI)


def busy(kb_id: str, kind: str = "reindex") -> bool:
    return any(not w.future.done() for w in _work(kind, kb_id))
