"""Background work (uploads, reindex) with live progress and cancel.

The page submits work to the engine, which queues it in the database (a worker — a thread of
this process or a worker process — runs it); the Future is kept in the session, and a fragment
polls the engine's job rows once a second until the work is done, then reruns the page once so
the results and the file list show. Each submitted file has its row at once: its queued job
("waiting for a worker", with Cancel) until a worker starts it.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import timezone

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.errors import show_error
from dashboard.i18n import t
from dashboard.messages import progress_line, said

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


ACTIVE = ("queued", "running")
CANCELLING = "cancel_requested_jobs"  # job ids this session asked to stop: "cancelling…" at once


def _since(job) -> float:
    created = job.created_at
    return (created if created.tzinfo else created.replace(tzinfo=timezone.utc)).timestamp()


def _progress_rows(engine: Engine, actor: Actor, kb_id: str, kind: str, waiting: list[str],
                   since: float | None = None) -> None:
    """A row per file (or the reindex): running ones with progress and Cancel; with ``since``,
    the ones of this batch that already ended keep their row with their final state (never
    back to "waiting to start"); submitted files without a job yet are waiting."""
    names = {f.id: f.name for f in engine.list_files(actor, kb_id)} if kind == "ingest" else {}
    shown: set[str] = set()
    asked = st.session_state.setdefault(CANCELLING, set())
    for job in engine.jobs(actor):  # newest first: a file's newest job is its row
        ours = job.state in ACTIVE or (since is not None and _since(job) >= since)
        same_kind = job.kind == kind or (kind == "ingest" and job.kind == "retry")
        if job.kb_id != kb_id or not same_kind or not ours:
            continue
        queued_name = (job.payload or {}).get("name") if job.kind in ("ingest", "retry") else None
        what = names.get(job.file_id or "") or queued_name or (t("jobs.reindex") if kind == "reindex" else t("jobs.file"))
        if what in shown:
            continue
        shown.add(what)
        cols = st.columns([5, 1], vertical_alignment="bottom")
        fraction = min(job.progress_done / job.progress_total, 1.0) if job.progress_total else 0.0
        if job.state not in ACTIVE:
            cols[0].progress(1.0 if job.state == "done" else fraction, text=f"{what} — {t(f'jobs.state.{job.state}')}")
            continue
        line = progress_line(job)
        cols[0].progress(fraction, text=f"{what} — {line}" if line else what)
        slot = cols[1].empty()
        if job.cancel_requested or job.id in asked:
            slot.caption(t("jobs.cancelling"))
        elif slot.button(t("jobs.cancel"), key=f"cancel_{job.id}", icon=":material/cancel:"):
            engine.cancel_job(actor, job.id)
            asked.add(job.id)
            slot.caption(t("jobs.cancelling"))  # in place of the button, before the engine gets to it
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
    _progress_rows(engine, actor, kb_id, kind, names, since=min(w.started for w in pending) - 1.0)


def _show_ingest(work: Work, result: list, listed_below: bool) -> None:
    """One summary; each file that was not indexed said once: below, in the file list with its
    reason (and Retry), when the page shows that knowledge base — here otherwise."""
    ok = sum(1 for r in result if r.ok)
    where = work.kb_name or work.kb_id
    if ok == len(result):
        st.success(t("jobs.ingest_done", ok=ok, n=len(result), kb=where), icon=":material/check_circle:")
    else:
        missed = ", ".join(r.name for r in result if not r.ok)
        st.warning(t("jobs.ingest_done", ok=ok, n=len(result), kb=where) + " "
                   + t("jobs.not_indexed_below" if listed_below else "jobs.not_indexed", names=missed),
                   icon=":material/warning:")
    for r in result:
        if not r.ok and not listed_below:
            reason = said(r.error, r.error_key, r.error_params)
            (st.info if r.status == "cancelled" else st.error)(f"**{r.name}** — {t('status.' + r.status)}: {reason}")
        elif r.ok and r.warnings:
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
        _show_ingest(work, result, work.kb_id == kb_id) if kind == "ingest" else _show_reindex(result)
    if any(not w.future.done() for w in _work(kind, kb_id)):
        _live(engine, actor, kb_id, kind)
    else:
        _progress_rows(engine, actor, kb_id, kind, [])  # work started elsewhere (another session, the CLI)


def busy(kb_id: str, kind: str = "reindex") -> bool:
    return any(not w.future.done() for w in _work(kind, kb_id))
