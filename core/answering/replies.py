"""What answering says in its own words, in the language of the question: strict mode's fixed
replies and the question back about a ``#mention``.

The language is picked by the question's script: Chinese characters → Chinese, Latin letters →
English, neither (a lone "?") → Chinese, the seed's language. A strict text an admin set
(``strict.rag_strict_no_hit_reply``, ``strict.rag_strict_uncovered_text``) is used as written,
for every language; left empty, the built-in text of the question's language is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.notices import Language, Notice, language, notice
from core.settings.model import AnsweringSettings, StrictModeSettings

# The Chinese texts are the seed's (002), word for word.
NO_HIT_REPLY = {"zh": "知识库中暂未收录相关内容，我无法凭已有信息作答。",
                "en": "The knowledge base does not cover this, so I cannot answer it from the information I have."}
UNCOVERED_TEXT = {"zh": "知识库中未收录", "en": "not covered by the knowledge base"}
NOT_FROM_KB_MARKER = {"zh": "以下内容并非来自知识库。", "en": "Not from the knowledge base."}


def no_hit_reply(strict: StrictModeSettings, question: str) -> str:
    return strict.rag_strict_no_hit_reply.strip() or NO_HIT_REPLY[language(question)]


def uncovered_text(strict: StrictModeSettings, question: str) -> str:
    return strict.rag_strict_uncovered_text.strip() or UNCOVERED_TEXT[language(question)]


def not_from_kb_marker(answering: AnsweringSettings, question: str) -> str:
    """The line before a normal answer that did not come from the knowledge base: the admin's
    text as written, or (left empty) the built-in one in the question's language."""
    return answering.not_from_kb_marker.strip() or NOT_FROM_KB_MARKER[language(question)]


@dataclass(frozen=True)
class Choice:
    """One knowledge base or file a mention could mean (``kb_name``: the file's knowledge base)."""

    name: str
    owner: str
    id: str
    kb_name: str = ""


@dataclass(frozen=True)
class Clarification:
    """A mention that names several knowledge bases or files (``kbs`` / ``files``), or none but
    is close to some (``typo``: ``close`` holds those names, with their ``#``)."""

    kind: Literal["kbs", "files", "typo"]
    name: str
    choices: tuple[Choice, ...] = ()
    close: tuple[str, ...] = ()

    def text(self, lang: Language = "en") -> str:
        """The question back, as a sentence of its own (English starts lower-case for notices)."""
        return _ZH[self.kind](self) if lang == "zh" else _EN[self.kind](self)


def _en_kbs(c: Clarification) -> str:
    options = "; ".join(f"'{k.name}' owned by {k.owner} (id {k.id})" for k in c.choices)
    return (f"several knowledge bases are named '{c.name}': {options}. Which one did you mean? "
            f"Mention it by id (#{c.choices[0].id}).")


def _en_files(c: Clarification) -> str:
    options = "; ".join(f"'{f.name}' in '{f.kb_name}' owned by {f.owner} (id {f.id})" for f in c.choices)
    return (f"several files are named '{c.name}': {options}. Which one did you mean? "
            f"Mention it by id (#{c.choices[0].id}).")


def _en_typo(c: Clarification) -> str:
    return f"no knowledge base named '{c.name}'. Did you mean {', '.join(c.close)}?"


def _zh_kbs(c: Clarification) -> str:
    options = "；".join(f"「{k.name}」（所有者 {k.owner}，id {k.id}）" for k in c.choices)
    return f"有多个知识库名为「{c.name}」：{options}。你指的是哪一个？请用 id 提及（#{c.choices[0].id}）。"


def _zh_files(c: Clarification) -> str:
    options = "；".join(f"「{f.name}」（知识库「{f.kb_name}」，所有者 {f.owner}，id {f.id}）" for f in c.choices)
    return f"有多个文件名为「{c.name}」：{options}。你指的是哪一个？请用 id 提及（#{c.choices[0].id}）。"


def _zh_typo(c: Clarification) -> str:
    return f"没有名为「{c.name}」的知识库。你是不是想找 {'、'.join(c.close)}？"


_EN = {"kbs": _en_kbs, "files": _en_files, "typo": _en_typo}
_ZH = {"kbs": _zh_kbs, "files": _zh_files, "typo": _zh_typo}


def ask_back_text(clarifications: list[Clarification], question: str) -> str:
    """Normal mode's answer to an unclear mention: the questions back, in the question's language."""
    lang = language(question)
    texts = [c.text(lang) for c in clarifications]
    return "\n".join(t[0].upper() + t[1:] for t in texts)


def strict_notice(c: Clarification, lang: Language = "en") -> Notice:
    """Strict mode does not ask back: what it would have asked goes in a notice (in the
    question's language, like every notice), and the answer is the fixed reply."""
    return notice("strict.no_ask_back", question=c.text(lang))
