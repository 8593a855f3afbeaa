"""The small text helpers the pages use: hard line breaks for answers, marked query terms,
file types as people name them, a chunk's heading path."""

from __future__ import annotations

from dashboard.chat_widgets import keep_line_breaks
from dashboard.highlight import highlight_html, query_terms
from dashboard.kb_files import heading_path
from dashboard.page import fmt_type


def test_answer_lines_stay_lines_but_tables_and_code_do_not_change():
    assert keep_line_breaks("第一步 填写。[1]\n第二步 签字。[2]") == "第一步 填写。[1]  \n第二步 签字。[2]"
    assert keep_line_breaks("a\n\nb") == "a\n\nb"  # paragraphs already break
    table = "| a | b |\n|---|---|\n| 1 | 2 |"
    assert keep_line_breaks(table) == table
    code = "```\nx = 1\ny = 2\n```"
    assert keep_line_breaks(code) == code


def test_query_terms_are_marked_escaped_and_merged():
    assert highlight_html("一律乘坐经济舱。<b>", "乘坐飞机 经济舱") == "一律<mark>乘坐经济舱</mark>。&lt;b&gt;"
    marked = highlight_html("Up to 5 unused annual-leave days may be carried over", "How many leave days carried over?")
    assert "<mark>leave</mark>" in marked and "<mark>days</mark>" in marked and "<mark>How</mark>" not in marked
    assert "什么" not in query_terms("年假是什么")  # question words are not marked
    assert highlight_html("plain", "") == "plain"


def test_file_types_and_heading_paths():
    assert fmt_type("application/pdf") == "PDF"
    assert fmt_type("application/vnd.openxmlformats-officedocument.wordprocessingml.document") == "Word"
    assert fmt_type("image/png") == "Image (PNG)" and fmt_type("") == "—"
    chunk = {"heading_path": ["员工手册"], "text": "## 第二章 假期\n\n第四条 …"}
    assert heading_path(chunk) == ["员工手册", "第二章 假期"]
    assert heading_path({"heading_path": ["A", "B"], "text": "## B\ntext"}) == ["A", "B"]  # not twice
