"""References typed into a message: ``#knowledge-base``, ``#file-name``, ``#https://…``, and
YouTube links (with or without the ``#``).

A ``#name`` that names a readable knowledge base narrows the search to it; one that names a
readable file narrows it to that file; a ``#https://…`` URL or a YouTube link (its
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

_TOKEN = r"[^\s，。！？、；：（）【】「」《》]+"  # a reference ends at a space or CJK punctuation
_REF = re.compile(r"(?<![\w#])#(%s)" % _TOKEN)
# A YouTube link counts as a reference even without the "#" (its transcript is the content).
_BARE_VIDEO = re.compile(r"(?<![#\w])https?://(?:www\.|m\.)?(?:youtube\.com|youtu\.be)/%s" % _TOKEN, re.IGNORECASE)
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
    videos = _bare_videos(message)
    if "#" not in message and not videos:
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
    for m, url in videos:
        refs.urls.append(url)
        spans.append((m.start(), m.start() + len(url)))
    spans.sort()
    for start, end in reversed(spans):
        refs.query = refs.query[:start] + refs.query[end:]
    refs.query = re.sub(r"\s+", " ", refs.query).strip() or message
    return refs


def _bare_videos(message: str) -> list[tuple[re.Match, str]]:
    from core.parsers.youtube import youtube_video_id  # lazy: the transcript client is heavy

    found = []
    for m in _BARE_VIDEO.finditer(message):
        url = m.group(0).rstrip(_TRAILING)
        if youtube_video_id(url) is not None:
            found.append((m, url))
    return found


def _file_names(engine: "Engine", actor: Actor) -> dict[str, str]:
    """Readable indexed knowledge-base files by full name and by name without extension."""
    names: dict[str, str] = {}
    for f in engine.list_files(actor, status="indexed"):
        if not f.kb_id:
            continue
        names.setdefault(f.name.lower(), f.id)
        names.setdefault(PurePosixPath(f.name).stem.lower(), f.id)
    return names


def count_url_references(message: str) -> int:
    """How many URLs a message would make the engine fetch (``#https://…`` and bare YouTube links)."""
    tokens = [m.group(1) for m in _REF.finditer(message)]
    return sum(1 for t in tokens if t.lower().startswith(("http://", "https://"))) + len(_bare_videos(message))
