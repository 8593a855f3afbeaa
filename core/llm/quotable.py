"""What the extractive answerer can quote from a passage: whole sentences, list items with the
sentence that introduces them, table rows with their header row, and the answer of a question.

Text from PDFs breaks lines where the page ended, not where the sentence did, and hyphenates
words across lines ("infor-\\nmation"). So soft line breaks are joined first: a line that does
not end a sentence runs on into the next one, unless the next line starts a structure of its own
(a list item, a heading, a table row, an article "第十条"). Only then are sentences split.

FAQ-shaped text pairs a question with its answer: "**Who approves overtime?** Your team lead.",
"Q: …?" then "A: …", "问：…？" then "答：…", or a heading "### How long …?" over a paragraph. A
question that starts its line (or is a heading) is a ``question`` unit: it is matched together with
its answer (the units after it, to the end of the answer's paragraph, the next question or heading),
and what is quoted for it is the answer alone — never the question sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from core.llm.base import is_cjk
from core.llm.text_match import split_line

# A line that ends a sentence or a clause: 。！？；：.!?;: possibly followed by closing quotes/brackets.
_ENDS_SENTENCE = re.compile(r"[。！？；：.!?;:][”」』）)\]\"']*$")
_HYPHENATED = re.compile(r"[A-Za-z]{2}-$")
_ITEM = re.compile(
    r"^(?:（[一二三四五六七八九十百]+）|\([一二三四五六七八九十]+\)|[一二三四五六七八九十百]+、"
    r"|\d{1,3}[.、)）](?!\d)|\((?:[a-z]|[ivx]{1,4}|\d{1,2})\)\s|[a-z][.)]\s|[-*+•·▪]\s)"
)
_ARTICLE = re.compile(r"^第[一二三四五六七八九十百千零〇\d]+[条章节]")
_HEADING = re.compile(r"^#{1,6}\s")
_TABLE_ROW = re.compile(r"^\|.*\|$|^[^|]+(?:\|[^|]*)+$")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?$")
# A sentence that announces a list.
_LEAD = re.compile(r"[：:]$|下列|如下|以下(?:情形|事项|条件|材料|内容|规定|几)|the following|as follows", re.I)
# After a lead, unmarked items are clauses that end in ；/; or in 的。 (Chinese legal lists).
_UNMARKED_ITEM = re.compile(r"(?:[；;]|的[。；]?)$")

# FAQ markup: a bold question at the start of a line, and the labels of a Q/A pair.
_BOLD_QUESTION = re.compile(r"^(\*\*|__)(.+?[?？])\1\s*")
_QUESTION_LABEL = re.compile(r"^(?:Q|Question|问|问题)\s*[:：]\s*", re.I)
_ANSWER_LABEL = re.compile(r"^(?:A|Answer|答|回答)\s*[:：]\s*", re.I)
_ASKS = re.compile(r"[?？][”」』）)\]\"'*]*$")

_COMMENT = re.compile(r"^<!--.*-->$")
_QUOTE_MARKUP = re.compile(r"^\s*(?:>\s*)+")


@dataclass
class QuoteUnit:
    """One quotable piece of a passage, in reading order."""

    text: str  # as written (a table row: the row line alone; an answer without its "A:" label)
    match: str  # what the question is matched against (a row: its header and the row; a question: with its answer)
    kind: Literal["sentence", "item", "row", "question"]
    line: int  # index of its line in the joined passage text
    lead: int | None = None  # an item: index of the unit that introduces its list
    items: list[int] = field(default_factory=list)  # a lead: its items (and the rest of its line)
    header: str | None = None  # a table row: its table's header row
    answer: list[int] = field(default_factory=list)  # a question: the units that answer it

    @property
    def is_lead(self) -> bool:
        return bool(self.items)


def _structural(line: str) -> bool:
    s = line.strip()
    return bool(_ITEM.match(s) or _ARTICLE.match(s) or _HEADING.match(s) or s.startswith("|")
                or _TABLE_RULE.match(s))


def join_soft_breaks(text: str) -> str:
    """Join the lines of a paragraph that a page layout broke mid-sentence (see the module doc)."""
    out: list[str] = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        prev = out[-1] if out else ""
        body = line.strip()
        joinable = (prev.strip() and body and not _structural(line) and not _ENDS_SENTENCE.search(prev)
                    and not _HEADING.match(prev.strip()) and not prev.strip().startswith("|"))
        if not joinable:
            out.append(line)
        elif _HYPHENATED.search(prev) and body[:1].islower():
            out[-1] = prev[:-1] + body  # "infor-" + "mation"
        elif is_cjk(prev[-1]) and is_cjk(body[0]):
            out[-1] = prev + body
        else:
            out[-1] = prev + " " + body
    return "\n".join(out)


class _QuestionTracker:
    """The open question of a FAQ, collecting its answer units as they come."""

    def __init__(self, units: list[QuoteUnit]):
        self.units = units
        self.open: int | None = None
        self.heading = False  # a question heading's answer runs on over blank lines, to the next heading

    def start(self, index: int, heading: bool = False) -> None:
        self.close()
        self.open, self.heading = index, heading

    def take(self, index: int) -> None:
        if self.open is None:
            return
        unit = self.units[index]
        if not self.units[self.open].answer:
            unit.text = _ANSWER_LABEL.sub("", unit.text) or unit.text
        self.units[self.open].answer.append(index)

    def paragraph_end(self) -> None:
        if self.open is not None and not self.heading and self.units[self.open].answer:
            self.close()

    def close(self) -> None:
        if self.open is not None:
            q = self.units[self.open]
            q.match = " ".join([q.text, *(self.units[i].match for i in q.answer)])
        self.open = None


def _question_text(line: str) -> tuple[str, str] | None:
    """(question, rest of the line) when the line starts with a question, else None."""
    bold = _BOLD_QUESTION.match(line)
    if bold:
        return _QUESTION_LABEL.sub("", bold.group(2)), line[bold.end():]
    first = split_line(line)[:1]
    if first and _ASKS.search(first[0]):
        return _QUESTION_LABEL.sub("", first[0]).strip("*_ "), line[len(first[0]):].strip()
    return None


def quote_units(text: str) -> list[QuoteUnit]:
    """The passage's quotable units in reading order (headings and blank lines are not units,
    except a heading that asks a question)."""
    lines = join_soft_breaks(text).split("\n")
    units: list[QuoteUnit] = []
    open_lead: int | None = None  # the lead whose items may follow
    header: str | None = None  # the current table's header row
    faq = _QuestionTracker(units)
    for i, raw in enumerate(lines):
        line = _QUOTE_MARKUP.sub("", raw).strip()
        if not line:
            faq.paragraph_end()
            continue
        if _TABLE_RULE.match(line) or _COMMENT.match(line):
            continue
        if _is_table_row(line, lines, i):
            faq.close()
            if _next_is_rule(lines, i):
                header = line  # the header row itself is context, not an answer
                continue
            units.append(QuoteUnit(line, f"{header or ''} {line}", "row", i, header=header))
            open_lead = None
            continue
        header = None
        if _HEADING.match(line):
            open_lead = None
            title = _HEADING.sub("", line).strip()
            if _ASKS.search(title):
                units.append(QuoteUnit(title, title, "question", i))
                faq.start(len(units) - 1, heading=True)
            else:
                faq.close()
            continue
        asked = _question_text(_ITEM.sub("", line)) if open_lead is None else None
        if asked:  # "**Q?** A", "Q: …?", "1. How do I …?": a question, answered by what follows
            open_lead = None
            units.append(QuoteUnit(asked[0], asked[0], "question", i))
            faq.start(len(units) - 1)
            line = asked[1]
        elif _ITEM.match(line) or (open_lead is not None and _UNMARKED_ITEM.search(line) and not _ARTICLE.match(line)):
            if open_lead is not None:
                units[open_lead].items.append(len(units))
            units.append(QuoteUnit(line, line, "item", i, lead=open_lead))
            faq.take(len(units) - 1)
            if open_lead is not None and not _ITEM.match(line) and line.endswith("。"):
                open_lead = None  # an unmarked list ends with its first full stop
            continue
        open_lead = None
        first = len(units)
        for s in split_line(line) if line else []:
            units.append(QuoteUnit(s, s, "sentence", i))
            faq.take(len(units) - 1)
        for k in range(first, len(units)):
            if _LEAD.search(units[k].text):
                rest = list(range(k + 1, len(units)))  # the list may run on in the same line
                units[k].items.extend(rest)
                for j in rest:
                    units[j].lead = k
                if units[k].text.endswith(("：", ":")) and k == len(units) - 1:
                    open_lead = k
                break
    faq.close()
    return units


def _is_table_row(line: str, lines: list[str], i: int) -> bool:
    if line.startswith("|") and line.endswith("|") and line.count("|") >= 2:
        return True
    # A pipe table without outer pipes counts only next to its rule line.
    return bool(_TABLE_ROW.match(line)) and (_next_is_rule(lines, i) or _after_rule(lines, i))


def _next_is_rule(lines: list[str], i: int) -> bool:
    return i + 1 < len(lines) and bool(_TABLE_RULE.match(lines[i + 1].strip())) and "-" in lines[i + 1]


def _after_rule(lines: list[str], i: int) -> bool:
    j = i - 1
    while j >= 0 and lines[j].strip() and not _TABLE_RULE.match(lines[j].strip()):
        j -= 1
    return j >= 0 and bool(lines[j].strip()) and bool(_TABLE_RULE.match(lines[j].strip()))


def table_rule(header: str) -> str:
    """The Markdown rule line under a header row."""
    cells = [c for c in header.strip().strip("|").split("|")]
    return "|" + "|".join(" --- " for _ in cells) + "|"
