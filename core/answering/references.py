"""References typed into a message: ``#knowledge-base``, ``#file-name``, ``#https://…``.

A ``#name`` that names a readable knowledge base narrows the search to it; one that names a
readable file narrows it to that file; a ``#https://…`` URL (a YouTube link gives its
transcript) is fetched, parsed and added to the chat's own collection. Anything else after a
``#`` is left alone (it is just text). The references are removed from the search query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from core.types import Actor

if TYPE_CHECKING:
    from core.engine import Engine

_REF = re.compile(r"(?<![\w#])#(\S+)")
_TRAILING = "，。！？,.!?;；:：)）]】"


@dataclass
class References:
    query: str  # the message without its references (what is searched for)
    kbs: list[str] = field(default_factory=list)  # knowledge base ids
    file_ids: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.kbs or self.file_ids or self.urls)


def parse_references(engine: "Engine", actor: Actor, message: str) -> References:
    if "#" not in message:
        return References(query=message)
    kbs = {kb.name.lower(): kb.id for kb in engine.list_kbs(actor)}
    files: dict[str, str] | None = None
    refs = References(query=message)
    spans: list[tuple[int, int]] = []
    for m in _REF.finditer(message):
        token = m.group(1).rstrip(_TRAILING)
        end = m.start(1) + len(token)
        low = token.lower()
        if low.startswith(("http://", "https://")):
            refs.urls.append(token)
        elif low in kbs:
            refs.kbs.append(kbs[low])
        else:
            if files is None:
                files = _file_names(engine, actor)
            if low in files:
                refs.file_ids.append(files[low])
            else:
                continue
        spans.append((m.start(), end))
    for start, end in reversed(spans):
        refs.query = refs.query[:start] + refs.query[end:]
    refs.query = re.sub(r"\s+", " ", refs.query).strip() or message
    return refs


def _file_names(engine: "Engine", actor: Actor) -> dict[str, str]:
    """Readable indexed knowledge-base files by full name and by name without extension."""
    names: dict[str, str] = {}
    for f in engine.list_files(actor, status="indexed"):
        if not f.kb_id:
            continue
        names.setdefault(f.name.lower(), f.id)
        names.setdefault(PurePosixPath(f.name).stem.lower(), f.id)
    return names
