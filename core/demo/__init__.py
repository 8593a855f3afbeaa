"""The demo: a bilingual employee handbook (written for this project, a fictional company)
loaded into a knowledge base, and a question set for the A/B page — covered questions with
expected answers, and off-topic ones the knowledge base cannot answer (expected "-").

``load_demo`` is what "Load the demo" on the dashboard and ``python -m core demo`` run. It is
idempotent: a second run finds the knowledge base and the files already there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources

from core.answering.questions import BatchItem, parse_batch
from core.errors import NotFound
from core.ingest.service import IngestResult, Upload
from core.types import Actor

DEMO_KB = "demo-handbook"
DEMO_DESCRIPTION = "Northwind Tools employee handbook, English and Chinese (a fictional company) · 北风工具公司中英文员工手册（虚构企业，演示用）"
DOCUMENTS = ("handbook_en.md", "handbook_zh.md")
QUESTIONS = "questions.jsonl"


def _read(name: str) -> bytes:
    return resources.files(__package__).joinpath(name).read_bytes()


def demo_uploads() -> list[Upload]:
    return [Upload(name, _read(name)) for name in DOCUMENTS]


def demo_questions_bytes() -> bytes:
    return _read(QUESTIONS)


def demo_questions() -> list[BatchItem]:
    return parse_batch(QUESTIONS, demo_questions_bytes())


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
    """Create (or find) the actor's demo knowledge base and index the two handbooks into it.
    Admins make it public so every user of the install can try it."""
    try:
        kb = engine.get_kb(actor, DEMO_KB)
        created = False
    except NotFound:
        kb = engine.create_kb(actor, DEMO_KB, DEMO_DESCRIPTION, "public" if actor.is_admin else "private")
        created = True
    results = engine.ingest(actor, kb.id, demo_uploads())
    return DemoResult(kb.id, kb.name, created, results)
