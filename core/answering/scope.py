"""The scope of one answer, decided once, before anything is fetched or searched: the selected
knowledge bases plus the ``#mentioned`` ones (all readable ones when there are neither), and
the selected or mentioned files within them."""

from __future__ import annotations

from dataclasses import dataclass

from core.answering.context import KBInfo, KnowledgeAccess
from core.answering.references import References
from core.retrieval.search import SearchTarget


@dataclass(frozen=True)
class Scope:
    kbs: tuple[KBInfo, ...]
    file_ids: tuple[str, ...] = ()

    def targets(self) -> list[SearchTarget]:
        return [kb.target() for kb in self.kbs if kb.collection]

    @property
    def kb_ids(self) -> tuple[str, ...]:
        return tuple(kb.id for kb in self.kbs)


def decide_scope(knowledge: KnowledgeAccess, selected_kb_ids: list[str] | None, selected_file_ids: tuple[str, ...],
                 refs: References) -> Scope:
    # A #file.md mention searches that file even when its knowledge base is not selected.
    mentioned = refs.kbs + (refs.file_kbs if (selected_kb_ids or refs.kbs) else [])
    wanted = list(dict.fromkeys((selected_kb_ids or []) + mentioned))
    kbs = tuple(kb for kb in (knowledge.kb(i) for i in wanted) if kb is not None) if wanted else knowledge.kbs
    return Scope(kbs, tuple(dict.fromkeys(tuple(selected_file_ids) + tuple(refs.file_ids))))
