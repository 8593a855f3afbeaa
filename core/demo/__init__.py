"""The demo: what ragdesk reads, about one fictional company (Northwind Tools), in one knowledge
base — a bilingual employee handbook (Markdown, written for this project) and documents generated
at load time in the other formats a team brings (``generated.py``: a PDF with a ruled table, a
scanned memo that only OCR can read, a Word file, a slide deck, a spreadsheet) — and a question set
for the A/B page: covered questions with expected answers, each naming the file that answers it
(``source``), and off-topic ones the knowledge base cannot answer (expected "-").

``load_demo`` is what "Load the demo" on the dashboard and ``python -m core demo`` run. It is
idempotent: the generated files are the same bytes every time, so a second run finds the
knowledge base and every file already there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources

from core.answering.questions import BatchItem, parse_batch
from core.demo.generated import generated_uploads
from core.errors import NotFound
from core.ingest.service import IngestResult, Upload
from core.types import Actor

DEMO_KB = "demo-handbook"
DEMO_DESCRIPTION = ("Northwind Tools (a fictional company): handbook in English and Chinese, an office directory PDF, "
                    "a scanned visitor policy, a Word file, a slide deck, a spreadsheet · 北风工具公司（虚构企业）演示："
                    "中英文员工手册、PDF、扫描件、Word、幻灯片、电子表格")
DOCUMENTS = ("handbook_en.md", "handbook_zh.md")  # bundled; the other formats are generated
QUESTIONS = "questions.jsonl"


def _read(name: str) -> bytes:
    return resources.files(__package__).joinpath(name).read_bytes()


def demo_uploads() -> list[Upload]:
    return [Upload(name, _read(name)) for name in DOCUMENTS] + generated_uploads()


def demo_questions_bytes() -> bytes:
    return _read(QUESTIONS)


def demo_questions() -> list[BatchItem]:
    return parse_batch(QUESTIONS, demo_questions_bytes())


def demo_question_sources() -> dict[str, str]:
    """Each covered demo question and the name of the file that answers it."""
    rows = [json.loads(line) for line in demo_questions_bytes().decode("utf-8").splitlines() if line.strip()]
    return {row["question"]: row["source"] for row in rows if row.get("source")}


@dataclass
class DemoResult:
    kb_id: str
    kb_name: str
    created: bool  # False: the demo knowledge base was already there
    files: list[IngestResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.files)


def load_demo(engine, actor: Actor) -> DemoResult:
    """Create (or find) the actor's demo knowledge base and index the demo documents into it (the
    scanned memo is OCR'd: the longest step). Admins make it public so every user can try it.
    ``engine``: an Engine, or the CLI's hand-off to the process holding the store (the engine's
    ``load_demo`` operation runs it there, on its job queue)."""
    return engine.load_demo(actor)


def fill_demo(db, actor: Actor, ingest: Callable[[str, list[Upload]], list[IngestResult]]) -> DemoResult:
    """``load_demo``'s work, next to the engine: ``ingest(kb_id, uploads)`` indexes the files."""
    from core import knowledge  # lazy: the knowledge-base module pulls in ingest and the store

    try:
        kb = knowledge.get_kb(db, actor, DEMO_KB)
        created = False
    except NotFound:
        kb = knowledge.create_kb(db, actor, DEMO_KB, DEMO_DESCRIPTION, "public" if actor.is_admin else "private")
        created = True
    return DemoResult(kb.id, kb.name, created, ingest(kb.id, demo_uploads()))
