"""Curated answers (core/curated/): approved question/answer pairs per knowledge base. Every
operation checks the actor."""

from __future__ import annotations

from datetime import datetime

from core.curated import csv_io, store
from core.curated.csv_io import ImportReport
from core.curated.store import CuratedEntry
from core.services.cli_groups import CURATED
from core.services.declare import Arg, Cli, Remote, operation
from core.services.runtime import Runtime
from core.types import Actor


def _decoded_csv(args: dict) -> dict:
    from core.curated.csv_io import decode

    return {**args, "data": decode(args["data"])}  # bytes read by the CLI travel as text


_KB = Arg(flag="--kb", help="knowledge base name or id")
_IN_KB = Arg(flag="--kb", required=True, help="knowledge base name or id")


def _line(r: dict) -> str:
    return f"{r['id']}  {r['approved_by']} {r['approved_at'][:10]}  {r['question']}  →  {r['answer'][:60]}"


def _import_lines(r: dict) -> str:
    return "\n".join([f"added {r['added']}, updated {r['updated']}, {len(r['errors'])} bad row(s)"]
                     + [f"line {e['line']}: {e['message']}" for e in r["errors"]])


class CuratedService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    def _embedder(self):
        from core.embeddings.factory import make_embedder

        return make_embedder(self._rt.settings().embedding)

    @operation(handoff=True, cli=Cli("list", group=CURATED, args={"kb": _KB},
                                     human=lambda rs: "\n".join(map(_line, rs)) or "no curated answers"))
    def curated_answers(self, actor: Actor, kb: str) -> list[CuratedEntry]:
        """The knowledge base's curated answers, oldest approval first."""
        return store.list_curated(self._rt.db, actor, kb)

    @operation(handoff=True, cli=Cli("add", group=CURATED, args={
        "kb": _KB, "question": Arg(flag="--question"), "answer": Arg(flag="--answer"),
        "approved_by": Arg(flag="--approved-by", help="the approver's name (default: the local admin)"),
        "approved_at": Arg(flag="--approved-at", help="when it was approved, ISO 8601 (default: now)")},
        human=lambda r: f"added curated answer {r['id']}"))
    def add_curated(self, actor: Actor, kb: str, question: str, answer: str, *, approved_by: str | None = None,
                    approved_at: datetime | None = None) -> CuratedEntry:
        """Add an approved question/answer pair, approved by you now (an admin may record another
        approver and time)."""
        return store.add_curated(self._rt.db, self._embedder(), actor, kb, question, answer,
                                 approved_by=approved_by, approved_at=approved_at)

    @operation()
    def update_curated(self, actor: Actor, entry_id: str, *, question: str | None = None,
                       answer: str | None = None) -> CuratedEntry:
        return store.update_curated(self._rt.db, self._embedder(), actor, entry_id, question=question, answer=answer)

    @operation(handoff=True, cli=Cli("delete", group=CURATED, args={
        "kb": _IN_KB, "entry_id": Arg(each=True, metavar="ids", help="curated answer ids (curated list)")},
        reply=lambda kwargs, _: {"deleted": kwargs["entry_id"]}, out=dict[str, list[str]],
        human=lambda r: f"deleted {len(r['deleted'])} curated answer(s)"))
    def delete_curated(self, actor: Actor, entry_id: str, kb: str | None = None) -> None:
        """Delete a curated answer (given a knowledge base, only one of its own)."""
        store.delete_curated(self._rt.db, actor, entry_id, kb)

    @operation(handoff=Remote(prepare=_decoded_csv), cli=Cli("import", group=CURATED, args={
        "kb": _KB, "data": Arg(path=True, metavar="file", help="CSV with columns question,answer[,approved_by,approved_at]")},
        human=_import_lines, exit=lambda r: 1 if r["errors"] else 0))
    def import_curated_csv(self, actor: Actor, kb: str, data: bytes | str) -> ImportReport:
        """Import curated answers from CSV; a question already curated gets the new answer."""
        return csv_io.import_csv(self._rt.db, self._embedder(), actor, kb, data)

    @operation(handoff=True, cli=Cli("export", group=CURATED, args={"kb": _KB}, output=("-o", "--output"),
                                     output_help="write the CSV here (default: print it)",
                                     reply=lambda _, text: {"csv": text}, out=dict[str, str], human=lambda r: r["csv"].removesuffix("\n")))
    def export_curated_csv(self, actor: Actor, kb: str) -> str:
        """The knowledge base's curated answers as CSV (question,answer,approved_by,approved_at)."""
        return csv_io.export_csv(self._rt.db, actor, kb)
