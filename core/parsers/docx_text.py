"""The visible text of a Word paragraph, read from its XML.

python-docx's ``Paragraph.text`` skips tracked insertions (w:ins) and text boxes. Here a
paragraph reads as Word shows it with changes accepted: inserted runs kept, deleted text
(w:delText) left out; text boxes anchored in the paragraph are returned separately, read
once (the VML fallback copy of a DrawingML text box is skipped).
"""

from __future__ import annotations

from docx.oxml.ns import qn

_T, _TAB, _BR, _CR = qn("w:t"), qn("w:tab"), qn("w:br"), qn("w:cr")
_HYPHEN, _TXBX, _P = qn("w:noBreakHyphen"), qn("w:txbxContent"), qn("w:p")
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"


def _walk_text(element, out: list[str]) -> None:
    for child in element.iterchildren():
        tag = child.tag
        if tag in (_TXBX, _FALLBACK):
            continue  # text boxes are separate blocks; fallbacks duplicate their choice
        if tag == _T:
            out.append(child.text or "")
        elif tag == _TAB:
            out.append("\t")
        elif tag in (_BR, _CR):
            out.append("\n")
        elif tag == _HYPHEN:
            out.append("-")
        else:
            _walk_text(child, out)


def paragraph_text(p_element) -> str:
    out: list[str] = []
    _walk_text(p_element, out)
    return "".join(out)


def text_boxes(p_element) -> list[str]:
    """Texts of the text boxes anchored in this paragraph, each as one block."""
    boxes: list[str] = []
    for box in p_element.iter(_TXBX):
        if any(ancestor.tag == _FALLBACK for ancestor in box.iterancestors()):
            continue
        lines = [paragraph_text(p).strip() for p in box.iter(_P)]
        text = "\n".join(line for line in lines if line)
        if text:
            boxes.append(text)
    return boxes


_NOTE_PARTS = {"footnotes": (qn("w:footnote"), "Footnotes"), "endnotes": (qn("w:endnote"), "Endnotes")}
_ID, _TYPE = qn("w:id"), qn("w:type")


def notes(document, warnings: list[str]) -> list[tuple[str, list[str]]]:
    """The document's footnotes and endnotes, each ("Footnotes", ["[1] text", ...]): a regulation's or
    a contract's note is part of what it says. Separator notes (w:type) carry no text of the author's.
    A notes part that cannot be read is left out with a warning; the body is read all the same."""
    from docx.oxml import parse_xml
    from lxml.etree import XMLSyntaxError

    out: list[tuple[str, list[str]]] = []
    for rel in document.part.rels.values():
        kind = rel.reltype.rsplit("/", 1)[-1]
        if kind not in _NOTE_PARTS or rel.is_external:
            continue
        tag, title = _NOTE_PARTS[kind]
        try:
            part = parse_xml(rel.target_part.blob)
        except XMLSyntaxError:
            warnings.append(f"the {kind} of this Word file cannot be read and were left out")
            continue
        texts = []
        for note in part.iter(tag):
            if note.get(_TYPE) not in (None, "normal"):
                continue
            text = " ".join(t for t in (paragraph_text(p).strip() for p in note.iter(_P)) if t)
            if text:
                texts.append(f"[{len(texts) + 1}] {text}")
        if texts:
            out.append((title, texts))
    return out
