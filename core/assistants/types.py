"""What a caller sees of an assistant (the API's, the CLI's and the hand-off's shape)."""

from __future__ import annotations

from pydantic import BaseModel


class AssistantView(BaseModel):
    id: str
    name: str
    description: str
    owner: str  # the owner's user name
    visibility: str  # private | shared | public
    mode: str  # strict | normal
    kbs: list[str]  # names of its knowledge bases the viewer may read ([] and no hidden: every readable one)
    kb_ids: list[str]  # their ids, in the same order (names may repeat across owners)
    hidden_kbs: int  # its knowledge bases the viewer may not read: never searched for them, never named
    strict_min_similarity: float | None
    normal_min_similarity: float | None
    top_k: int | None
    prompt: str
    refusal_text: str
    where: dict | None  # its metadata filter on every question (None: none)
    shared_with: list[str]  # user names (shown to its owner and admins only)
    may_change: bool
