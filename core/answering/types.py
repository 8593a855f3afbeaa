"""What answering returns and streams. Pages render these; the CLI prints them as JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Mode = Literal["normal", "strict"]


@dataclass
class Citation:
    n: int  # the [n] used in the answer text
    chunk_id: str
    file_id: str
    source_name: str
    location: str  # "p. 3", "pp. 3–4", "slide 2", "1:05", or ""
    heading_path: list[str]
    text: str  # the passage as injected
    score: float
    kb_id: str = ""
    page: int | None = None
    slide: int | None = None
    start_seconds: float | None = None
    page_end: int | None = None  # the passage runs on to this page (``location`` reads "pp. 3–4")
    origin: str = "kb"  # kb | attachment (a file of this chat) | url (a fetched page) | web | curated
    url: str = ""  # where the cited file lives, for files from a source (a Drive file's webViewLink)
    # A curated answer (origin "curated"): who approved it and when (ISO 8601); chunk_id is its id.
    approved_by: str = ""
    approved_at: str = ""


@dataclass
class AnswerEvent:
    """One step the UI can show live.

    kind: retrieval_started | sources_found | no_hit | web_search | generating | text | tool_call |
    notice | error | done
    """

    kind: str
    message: str = ""
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Answer:
    question: str
    text: str
    mode: Mode
    hit: bool  # retrieval found passages above the mode's threshold
    llm_called: bool  # whether any request went to a language model
    citations: list[Citation] = field(default_factory=list)
    retrieved: list[dict[str, Any]] = field(default_factory=list)  # every scored chunk (retrieval-test view)
    events: list[AnswerEvent] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)  # e.g. "not from the knowledge base", context cut
    flagged: bool = False  # normal mode low-similarity → flagged for a human (setting)
    from_kb: bool = True  # False when answered from general knowledge (normal mode, no hit)
    weak_match: bool = False  # normal mode: the best passage only just or only on one channel passed (confidence.py)
    # Set when a curated answer fired: its id, knowledge base, question, approver, time, similarity.
    curated: dict[str, Any] | None = None
    # Where the cited passages came from, in first-cited order: "kb", "attachment", "url", "web", "curated".
    # Empty when nothing is cited (general knowledge, a refusal, a question back to the user).
    sources: list[str] = field(default_factory=list)
    chat_id: str | None = None
    message_id: str | None = None
    error: str = ""
    error_kind: str = ""  # the engine error's class name when it failed (StoreUnavailable, LLMError, ...)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Comparison:
    question: str
    normal: Answer
    strict: Answer
