"""One answer in progress: events delivered as they happen, timings, the final Answer."""

from __future__ import annotations

import re
import time
from dataclasses import asdict
from typing import Callable

from core.answering.prompts import ContextItem
from core.answering.types import Answer, AnswerEvent, Citation
from core.notices import Notice, language

EventSink = Callable[[AnswerEvent], None]
_CITE = re.compile(r"\[(\d{1,3})\]")


class AnswerRun:
    def __init__(self, question: str, mode: str, on_event: EventSink | None, started: float | None = None):
        self.t0 = time.perf_counter() if started is None else started
        self.answer = Answer(question=question, text="", mode=mode, hit=False, llm_called=False)  # type: ignore[arg-type]
        self.lang = language(question)  # notices are said in the question's language (core/notices.py)
        self.on_event = on_event
        self.injected: list[ContextItem] = []
        self.search_unavailable = False  # the embedding service failed: answered without retrieval

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 2)

    def mark(self, name: str) -> None:
        """Record the time since the question arrived, the first time ``name`` happens."""
        self.answer.timings_ms.setdefault(name, self.elapsed_ms())

    def emit(self, kind: str, message: str = "", **data) -> None:
        event = AnswerEvent(kind, message, data)
        self.answer.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def notice(self, message: Notice | str) -> None:
        """A notice beside the answer: a ``Notice`` is said in the question's language; a text is
        one already said in it (the weak-match notice, an admin's own words)."""
        text = message.text(self.lang) if isinstance(message, Notice) else message
        self.answer.notices.append(text)
        self.emit("notice", text)

    def fail(self, message: str, kind: str = "") -> None:
        """``kind``: the engine error's class name (the HTTP API answers with its status)."""
        self.answer.error = message
        self.answer.error_kind = kind
        self.emit("error", message)

    def cite(self, items: list[ContextItem]) -> None:
        """Citations: the passages the text cites as [n]; all injected ones when it cites none."""
        by_n = {i.n: i for i in items}
        cited = sorted({int(m) for m in _CITE.findall(self.answer.text) if int(m) in by_n})
        chosen = [by_n[n] for n in cited] if cited else [i for i in self.injected if i.n in by_n]
        self.set_citations([citation(i) for i in chosen])

    def set_citations(self, citations: list[Citation]) -> None:
        self.answer.citations = citations
        self.answer.sources = list(dict.fromkeys(c.origin for c in citations))
        # from_kb stays the badge's "from the knowledge base": only when a KB passage is cited
        # or, with nothing cited, when nothing else was used.
        if citations and "kb" not in self.answer.sources:
            self.answer.from_kb = False

    def finish(self) -> Answer:
        if not self.answer.citations:  # a refusal, a question back, general knowledge: nothing from the knowledge base
            self.answer.from_kb = False
        self.answer.timings_ms["total_ms"] = self.elapsed_ms()
        self.emit("done", "", timings_ms=dict(self.answer.timings_ms))
        return self.answer


def citation(i: ContextItem) -> Citation:
    return Citation(n=i.n, chunk_id=i.chunk_id, file_id=i.file_id, source_name=i.source, location=i.location,
                    heading_path=list(i.heading_path), text=i.text, score=round(i.score, 4), kb_id=i.kb_id,
                    page=i.page, slide=i.slide, start_seconds=i.start_seconds, page_end=i.page_end, origin=i.origin)


def citation_dicts(answer: Answer) -> list[dict]:
    return [asdict(c) for c in answer.citations]
