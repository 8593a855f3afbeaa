"""References typed into a message: ``#knowledge-base``, ``#file-name``, ``#https://…``, and
YouTube links (with or without the ``#``).

``#name`` is resolved among the knowledge bases the actor can read, in a fixed order: their
own, then those shared with them, then public ones (then, for an admin, other users' private
ones). Two of the same tier with that name is ambiguous: the answer asks which one (owners
shown) instead of guessing. A ``#name`` that is no knowledge base is tried as a file name, in
the same order. A name close to a knowledge base or file (a typo) asks "did you mean"; any
other ``#word`` stays plain text, with a notice that no knowledge base has that name.
URLs are collected here; whether they are fetched is the mode's decision (strict: never).
The references are removed from the search query.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from core.answering.context import TIERS, FileInfo, KBInfo, KnowledgeAccess
from core.answering.replies import Choice, Clarification
from core.metadata.where import is_filter_mention
from core.notices import Notice, notice

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
    file_kbs: list[str] = field(default_factory=list)  # the knowledge bases of those files
    urls: list[str] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)  # shown; the answer goes on
    questions: list[Clarification] = field(default_factory=list)  # normal mode stops and asks these instead

    @property
    def any(self) -> bool:
        return bool(self.kbs or self.file_ids or self.urls)


def _first_tier(matches: list) -> list:
    """The matches of the best tier present (own < shared < public < other)."""
    for tier in TIERS:
        found = [m for m in matches if m.tier == tier]
        if found:
            return found
    return []


def _kb_choice(name: str, kbs: list[KBInfo]) -> Clarification:
    return Clarification("kbs", name, tuple(Choice(k.name, k.owner, k.id) for k in kbs))


def _file_choice(name: str, files: list[FileInfo]) -> Clarification:
    return Clarification("files", name, tuple(Choice(f.name, f.owner, f.id, f.kb_name) for f in files))


def parse_references(knowledge: KnowledgeAccess, message: str) -> References:
    videos = _bare_videos(message)
    if "#" not in message and not videos:
        return References(query=message)
    kbs_by_name: dict[str, list[KBInfo]] = {}
    for kb in knowledge.kbs:
        kbs_by_name.setdefault(kb.name.lower(), []).append(kb)
        kbs_by_name.setdefault(kb.id.lower(), []).append(kb)
    files: dict[str, list[FileInfo]] | None = None
    refs = References(query=message)
    spans: list[tuple[int, int]] = []
    for m in _REF.finditer(message):
        token = m.group(1).rstrip(_TRAILING)
        end = m.start(1) + len(token)
        low = token.lower()
        if low.startswith(("http://", "https://")):
            refs.urls.append(token)
        elif low in kbs_by_name:
            best = _first_tier(kbs_by_name[low])
            if len(best) > 1:
                refs.questions.append(_kb_choice(token, best))
            else:
                refs.kbs.append(best[0].id)
        else:
            if files is None:
                files = _file_names(knowledge.files())
            if low in files:
                best = _first_tier(files[low])
                if len(best) > 1:
                    refs.questions.append(_file_choice(token, best))
                else:
                    refs.file_ids.append(best[0].id)
                    refs.file_kbs.append(best[0].kb_id)
            elif is_filter_mention(token):  # #office=Lisbon: a metadata filter (the engine applies it;
                # a knowledge base or file of that name wins, above and in core.metadata.where.mentioned)
                pass
            else:
                _unknown(token, list(kbs_by_name) + list(files), knowledge, refs)
                continue
        spans.append((m.start(), end))
    for m, url in videos:
        refs.urls.append(url)
        spans.append((m.start(), m.start() + len(url)))
    spans.sort()
    for start, end in reversed(spans):
        refs.query = refs.query[:start] + refs.query[end:]
    refs.query = re.sub(r"\s+", " ", refs.query).strip() or message
    refs.kbs = list(dict.fromkeys(refs.kbs))
    refs.file_ids = list(dict.fromkeys(refs.file_ids))
    return refs


def _unknown(token: str, names: list[str], knowledge: KnowledgeAccess, refs: References) -> None:
    close = difflib.get_close_matches(token.lower(), names, n=3, cutoff=0.75)
    if close:
        # Show names as written, not lowered.
        shown = {k.name.lower(): k.name for k in knowledge.kbs}
        refs.questions.append(Clarification("typo", token, close=tuple(f"#{shown.get(c, c)}" for c in dict.fromkeys(close))))
    else:
        refs.notices.append(notice("mention.unknown", token=token))


def _bare_videos(message: str) -> list[tuple[re.Match, str]]:
    from core.parsers.youtube import (
        youtube_video_id,  # lazy: the transcript client is heavy
    )

    found = []
    for m in _BARE_VIDEO.finditer(message):
        url = m.group(0).rstrip(_TRAILING)
        if youtube_video_id(url) is not None:
            found.append((m, url))
    return found


def mention_names(kbs: tuple[KBInfo, ...], files: list[FileInfo]) -> frozenset[str]:
    """Every lower-cased name a ``#mention`` resolves to a knowledge base or file (as
    ``parse_references`` reads them): a filter-like mention that is one of these is that name."""
    return frozenset({k.name.lower() for k in kbs} | {k.id.lower() for k in kbs} | set(_file_names(files)))


def _file_names(files: list[FileInfo]) -> dict[str, list[FileInfo]]:
    """Readable indexed knowledge-base files by full name, by name without extension and by id."""
    names: dict[str, list[FileInfo]] = {}
    for f in files:
        keys = {f.name.lower(), PurePosixPath(f.name).stem.lower(), f.id.lower()}
        for key in keys:
            names.setdefault(key, []).append(f)
    return names


def count_url_references(message: str) -> int:
    """How many URLs a message would make the engine fetch (``#https://…`` and bare YouTube links)."""
    tokens = [m.group(1) for m in _REF.finditer(message)]
    return sum(1 for t in tokens if t.lower().startswith(("http://", "https://"))) + len(_bare_videos(message))
