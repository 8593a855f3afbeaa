"""The A/B HTML report shows text from documents, questions and answers: Markdown tables are
rendered as HTML tables (issue 18), and nothing a document or a question says becomes markup."""

from __future__ import annotations

import re

from core.answering.report import comparison_rows, html_report
from core.answering.types import Answer, Citation, Comparison

HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script></td></tr></table><a href="javascript:x">'


def test_table_cells_questions_and_citations_cannot_inject_markup():
    cite = Citation(n=1, chunk_id="c", file_id="f", source_name=f"{HOSTILE}.md", location="", heading_path=[],
                    text=HOSTILE, score=0.9, kb_id="k")
    text = f"| Name | Value {HOSTILE} |\n|---|---|\n| {HOSTILE} | 1 |\n| `x` | <style>*{{display:none}}</style> |\n\n[1]"
    answer = Answer(HOSTILE, text, "normal", hit=True, llm_called=False, citations=[cite])
    page = html_report(comparison_rows([Comparison(HOSTILE, answer, answer)], [HOSTILE]), title=HOSTILE)
    body = page.split("<body>", 1)[1]  # the head holds the report's own inline style, nothing else
    assert not re.search(r"<(?:img|script|a|style)\b", body, re.I) and "<script" not in page
    assert page.count("<table class='md'>") == 2  # the answer's table was rendered, in both columns
    assert page.count("<table") == page.count("</table>")  # a cell's "</table>" did not close anything
