"""Background work (uploads, reindex) with live progress and cancel.

The page submits work to the engine (it runs in the engine's worker thread); the Future is
kept in the session, and a fragment polls the engine's job rows once a second until the
work is done, then reruns the page once so the results and the file list show.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from concurrent.futures import Future

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
    started: float = field(default_factory=time.time)


def track(kind: str, kb_id: str, future: Future, names: list[str] | None = None) -> None:
    st.session_state.setdefault(KEY, []).append(Work(kind, kb_id, future, list(names or [])))


def _work(kb_id: str) -> list[Work]:
    return [w for w in st.session_state.get(KEY, []) if w.kb_id == kb_id]


def _progress_rows(engine: Engine, actor: Actor, kb_id: str) -> None:
    names = {f.id: f.name for f in engine.list_files(actor, kb_id)}
    for job in engine.jobs(actor, active_only=True):
        if job.kb_id != kb_id:
            continue
        what = names.get(job.file_id or "", t("jobs.reindex") if job.kind == "reindex" else job.kind)
        total = max(job.progress_total, 1)
        cols = st.columns([5, 1], vertical_alignment="bottom")
        cols[0].progress(min(job.progress_done / total, 1.0),
                         text=f"{what} — {job.message} ({job.progress_done}/{job.progress_total})")
        if job.cancel_requested:
            cols[1].caption(t("jobs.cancelling"))
        elif cols[1].button(t("jobs.cancel"), key=f"cancel_{job.id}", icon=":material/cancel:"):
            engine.cancel_job(actor, job.id)
            st.toast(t("jobs.cancel_sent"))


@st.fragment(run_every=1.0)
def _live(engine: Engine, actor: Actor, kb_id: str) -> None:
    pending = [w for w in _work(kb_id) if not w.future.done()]
    if not pending:
        st.rerun()  # everything finished: one full rerun shows results and the new file list
    waiting = sum(len(w.names) for w in pending if w.kind == "ingest")
    st.caption(t("jobs.running", n=len(pending), files=waiting))
    _progress_rows(engine, actor, kb_id)


def _show_result(work: Work) -> None:
    try:
        result = work.future.result()
    except Exception as exc:  # the engine's error for the whole batch (e.g. reindex needed)
        show_error(exc)
        return
    if work.kind == "ingest":
        rows = [{t("col.file"): r.name, t("col.status"): r.status, t("col.chunks"): r.chunks,
                 t("col.error"): r.error or "; ".join(r.warnings)} for r in result]
        ok = sum(1 for r in result if r.ok)
        (st.success if ok == len(result) else st.warning)(t("jobs.ingest_done", ok=ok, n=len(result)))
        st.dataframe(rows, hide_index=True, width="stretch")
    else:
        text = t("jobs.reindex_done", status=result.status, files=result.files, chunks=result.chunks)
        (st.success if result.status == "done" else st.warning)(text + (f" — {result.error}" if result.error else ""))
        for name, err in result.file_errors.items():
            st.caption(f"{name}: {err}")


def render_work(engine: Engine, actor: Actor, kb_id: str) -> None:
    """Results of finished work (shown once), then live progress of running work."""
    mine = _work(kb_id)
    for work in [w for w in mine if w.future.done()]:
        _show_result(work)
        st.session_state[KEY].remove(work)
    if any(not w.future.done() for w in _work(kb_id)):
        _live(engine, actor, kb_id)
    else:
        _progress_rows(engine, actor, kb_id)  # work started elsewhere (another session, the CLI)


def busy(kb_id: str) -> bool:
    return any(not w.future.done() for w in _work(kb_id))
