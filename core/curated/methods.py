"""The engine's curated-answer methods (``Engine`` inherits them). Every one checks the actor."""

from __future__ import annotations

from datetime import datetime

from core.curated import csv_io, store
from core.curated.csv_io import ImportReport
from core.curated.store import CuratedEntry
from core.types import Actor


class CuratedMethods:
    """Mixed into ``core.engine.Engine`` (uses its db and embedder)."""

    def curated_answers(self, actor: Actor, kb: str) -> list[CuratedEntry]:
        return store.list_curated(self._db, actor, kb)

    def add_curated(self, actor: Actor, kb: str, question: str, answer: str, *, approved_by: str | None = None,
                    approved_at: datetime | None = None) -> CuratedEntry:
        """Approved by the actor, now (an admin may record another approver and time)."""
        return store.add_curated(self._db, self.embedder(), actor, kb, question, answer,
                                 approved_by=approved_by, approved_at=approved_at)

    def update_curated(self, actor: Actor, entry_id: str, *, question: str | None = None,
                       answer: str | None = None) -> CuratedEntry:
        return store.update_curated(self._db, self.embedder(), actor, entry_id, question=question, answer=answer)

    def delete_curated(self, actor: Actor, entry_id: str) -> None:
        store.delete_curated(self._db, actor, entry_id)

    def import_curated_csv(self, actor: Actor, kb: str, data: bytes | str) -> ImportReport:
        return csv_io.import_csv(self._db, self.embedder(), actor, kb, data)

    def export_curated_csv(self, actor: Actor, kb: str) -> str:
        return csv_io.export_csv(self._db, actor, kb)
