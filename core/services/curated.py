"""Curated answers (core/curated/): approved question/answer pairs per knowledge base. Every
operation checks the actor."""

from __future__ import annotations

from datetime import datetime

from core.curated import csv_io, store
from core.curated.csv_io import ImportReport
from core.curated.store import CuratedEntry
from core.services.declare import Remote, operation
from core.services.runtime import Runtime
from core.types import Actor


def _decoded_csv(args: dict) -> dict:
    from core.curated.csv_io import decode

    return {**args, "data": decode(args["data"])}  # bytes read by the CLI travel as text


class CuratedService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    def _embedder(self):
        from core.embeddings.factory import make_embedder

        return make_embedder(self._rt.settings().embedding)

    @operation(handoff=True)
    def curated_answers(self, actor: Actor, kb: str) -> list[CuratedEntry]:
        return store.list_curated(self._rt.db, actor, kb)

    @operation(handoff=True)
    def add_curated(self, actor: Actor, kb: str, question: str, answer: str, *, approved_by: str | None = None,
                    approved_at: datetime | None = None) -> CuratedEntry:
        """Approved by the actor, now (an admin may record another approver and time)."""
        return store.add_curated(self._rt.db, self._embedder(), actor, kb, question, answer,
                                 approved_by=approved_by, approved_at=approved_at)

    @operation()
    def update_curated(self, actor: Actor, entry_id: str, *, question: str | None = None,
                       answer: str | None = None) -> CuratedEntry:
        return store.update_curated(self._rt.db, self._embedder(), actor, entry_id, question=question, answer=answer)

    @operation(handoff=True)
    def delete_curated(self, actor: Actor, entry_id: str) -> None:
        store.delete_curated(self._rt.db, actor, entry_id)

    @operation(handoff=Remote(prepare=_decoded_csv))
    def import_curated_csv(self, actor: Actor, kb: str, data: bytes | str) -> ImportReport:
        return csv_io.import_csv(self._rt.db, self._embedder(), actor, kb, data)

    @operation(handoff=True)
    def export_curated_csv(self, actor: Actor, kb: str) -> str:
        return csv_io.export_csv(self._rt.db, actor, kb)
