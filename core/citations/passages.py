"""A cited passage in the text around it: text formats, slides and sheets.

The stored parsed text (core/ingest/blobs.py) is the source here: it is what the passage was
cut from, so the passage is found in it whatever the format (Markdown, plain text, Word,
HTML, transcripts). A slide is shown whole (its title, text and notes); a sheet as its rows,
the cited ones marked among a few neighbours; other text as a window around the passage,
widened to paragraph ends.
"""

from __future__ import annotations

from core.citations.match import locate, merge_spans, normalise
from core.citations.types import PassageView, SheetRow, SheetView
from core.types import DocPart, ParsedDoc

WINDOW_CHARS = 700  # of surrounding text on each side of the passage
SLIDE_MAX_CHARS = 8000
NEIGHBOUR_ROWS = 3  # shown above and below the cited rows
MAX_SHEET_ROWS = 60


def best_part(doc: ParsedDoc, passage: str, *, page: int | None = None, slide: int | None = None) -> DocPart | None:
    """The part the passage was cut from: the one at the cited page or slide when there is one,
    else the one holding most of it."""
    for part in doc.parts:
        if (slide is not None and part.slide == slide) or (page is not None and slide is None and part.page == page):
            return part
    scored = [(sum(e - s for s, e in locate(p.text, passage)), i) for i, p in enumerate(doc.parts)]
    best = max(scored, default=(0, -1))
    return doc.parts[best[1]] if best[0] > 0 else None


def _paragraph_window(text: str, spans: list[tuple[int, int]]) -> tuple[int, int]:
    start = max(0, spans[0][0] - WINDOW_CHARS)
    end = min(len(text), spans[-1][1] + WINDOW_CHARS)
    if start > 0:
        cut = text.rfind("\n\n", start, spans[0][0])
        start = cut + 2 if cut >= 0 else start
    if end < len(text):
        cut = text.find("\n\n", spans[-1][1], end)
        end = cut if cut >= 0 else end
    return start, end


def text_view(file_id: str, doc: ParsedDoc, passage: str, heading_path: tuple[str, ...] = ()) -> PassageView:
    text = doc.text
    spans = merge_spans(locate(text, passage))
    title = heading_path[-1] if heading_path else (doc.title or "")
    if not spans:
        return PassageView("text", file_id, doc.source_name, title, passage, [(0, len(passage))], note="not_found")
    start, end = _paragraph_window(text, spans)
    inside = [(max(s, start) - start, min(e, end) - start) for s, e in spans if e > start and s < end]
    return PassageView("text", file_id, doc.source_name, title, text[start:end], inside,
                       more_before=start > 0, more_after=end < len(text))


def slide_view(file_id: str, doc: ParsedDoc, passage: str, slide: int | None) -> PassageView:
    part = best_part(doc, passage, slide=slide)
    if part is None:
        return PassageView("slide", file_id, doc.source_name, "", passage, [(0, len(passage))], slide=slide, note="not_found")
    title = part.heading_path[0] if part.heading_path else f"Slide {part.slide}"
    body = part.text
    heading, _, rest = body.partition("\n\n")
    if heading.startswith("## "):
        body = rest  # the title is shown apart
    body = body[:SLIDE_MAX_CHARS]
    spans = merge_spans(locate(body, passage))
    return PassageView("slide", file_id, doc.source_name, title, body, spans, more_after=len(part.text) > SLIDE_MAX_CHARS,
                       slide=part.slide, note="" if spans else "not_found")


def _cells(line: str) -> list[str]:
    """The cells of a Markdown table row written by core/parsers/office_table.py."""
    inner = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    cells, current, escaped = [], [], False
    for ch in inner:
        if escaped:
            current.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    cells.append("".join(current).strip())
    return [c.replace("\\|", "|") for c in cells]


def sheet_view(file_id: str, doc: ParsedDoc, passage: str, heading_path: tuple[str, ...] = ()) -> SheetView:
    sheet_name = heading_path[0] if heading_path else ""
    part = next((p for p in doc.parts if sheet_name and p.heading_path[:1] == (sheet_name,)), None) \
        or best_part(doc, passage)
    if part is None:
        return SheetView("sheet", file_id, doc.source_name, sheet_name, [], note="not_found")
    table = [line for line in part.text.split("\n") if line.startswith("|")]
    if len(table) < 2:
        return SheetView("sheet", file_id, doc.source_name, sheet_name, [], note="not_found")
    header, body = _cells(table[0]), [_cells(line) for line in table[2:]]  # table[1] is the --- rule
    needle, _ = normalise(passage)
    cited = []
    for i, row in enumerate(body):
        row_text, _ = normalise(" ".join(row))
        if len(row_text) >= 2 and row_text in needle:
            cited.append(i)
    name = part.heading_path[0] if part.heading_path else sheet_name
    if not cited:
        return SheetView("sheet", file_id, doc.source_name, name, header, note="not_found")
    first = max(0, cited[0] - NEIGHBOUR_ROWS)
    last = min(len(body), cited[-1] + NEIGHBOUR_ROWS + 1, first + MAX_SHEET_ROWS)
    marked = set(cited)
    rows = [SheetRow(i + 1, body[i], i in marked) for i in range(first, last)]
    return SheetView("sheet", file_id, doc.source_name, name, header, rows)
