"""Step 1: cleaning removes markup noise and keeps structure and content."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from core.chunking.clean import _strip_controls, clean_text


def test_html_tags_go_and_their_text_stays():
    out = clean_text('<div class="x"><p>Hello <b>world</b> and <a href="/y">链接</a></p></div>')
    assert "<" not in out and ">" not in out
    assert "Hello world and 链接" in out


def test_script_and_style_content_is_dropped():
    out = clean_text("<style>.a{color:red}</style>Text<script>alert('x')</script> here")
    assert out == "Text here"


def test_entities_are_decoded_and_br_breaks_the_line():
    assert clean_text("Fish &amp; chips<br/>&lt;tag&gt; 中&nbsp;文") == "Fish & chips\n<tag> 中 文"


def test_html_and_mdx_comments_are_removed():
    text = "# 规则\n\n<!-- INFO END -->\n\n正文{/* hidden note */}内容"
    assert clean_text(text) == "# 规则\n\n正文内容"


def test_images_become_their_alt_text_and_links_their_text():
    text = "See ![架构图](img/a.png \"t\") and [the docs](https://x.org/a_(b)) or [ref][1].\n\n[1]: https://x.org"
    assert clean_text(text) == "See 架构图 and the docs or ref."


def test_linked_image_keeps_its_alt_text():
    assert clean_text("[![Logo](logo.png)](https://example.com)") == "Logo"


def test_autolinks_keep_the_address():
    assert clean_text("Mail <mailto:a@b.org> or <https://x.org/p?q=1>") == "Mail mailto:a@b.org or https://x.org/p?q=1"


@pytest.mark.parametrize(
    "marked, plain",
    [
        ("**粗体** and __bold__ text", "粗体 and bold text"),
        ("*italic* and _emphasis_, ok", "italic and emphasis, ok"),
        ("~~gone~~ 删除线", "gone 删除线"),
        ("***both***", "both"),
    ],
)
def test_emphasis_markers_go(marked: str, plain: str):
    assert clean_text(marked) == plain


@pytest.mark.parametrize("kept", ["snake_case_name and __init__.py", "2 * 3 * 4 = 24", "file_name_here"])
def test_underscores_and_stars_that_are_not_emphasis_stay(kept: str):
    assert clean_text(kept) == kept


def test_control_characters_go_but_newlines_and_tabs_stay():
    text = "a\x00b\x07c\u200bd\ufeff\r\nline\ttab\rnext"
    assert clean_text(text) == "abcd\nline tab\nnext"


def test_every_unicode_control_character_goes_but_newline_and_tab():
    # the dropped set is written as code point ranges: it must be exactly Unicode's category Cc
    every = [chr(c) for c in range(sys.maxunicode + 1)]
    controls = "".join(ch for ch in every if unicodedata.category(ch) == "Cc")
    assert _strip_controls(f"a{controls}b") == "a\t\nb"
    kept = "".join(ch for ch in every[:0x3000] if unicodedata.category(ch) != "Cc" and ch not in "\u00ad\u200b\u200c\u200d\u2060")
    assert _strip_controls(kept) == kept


def test_whitespace_is_normalised():
    text = "  lead   spaces\u3000and\u00a0nbsp   \n\n\n\n\nnext   \n"
    assert clean_text(text) == "  lead spaces and nbsp\n\nnext"


def test_headings_lists_and_pipe_tables_are_kept():
    text = (
        "## 第一章 总则\n\n- item one\n- item two\n  - nested\n1. first\n2. second\n\n"
        "| 格式 | 解析方式 |\n|---|---|\n| PDF | pdfplumber |"
    )
    assert clean_text(text) == text


def test_fenced_code_keeps_its_content_verbatim():
    code = "```python\n# not a heading\nx = '**not bold**'  # <div>\n\n\n    indented = [1](2)\n```"
    out = clean_text(f"Intro **text**\n{code}\nAfter")
    assert code in out
    assert out.startswith("Intro text\n\n") and out.endswith("\n\nAfter")


def test_inline_code_is_protected():
    assert clean_text("Use `<div>` and `**x**` here") == "Use `<div>` and `**x**` here"


def test_front_matter_and_mdx_imports_go():
    text = "---\nsidebar_position: 3\ntitle: Setup\n---\n\nimport Tabs from '@theme/Tabs';\n\n# Setup\n\nBody"
    assert clean_text(text) == "# Setup\n\nBody"


def test_setext_headings_become_atx_and_rules_go():
    assert clean_text("Title\n=====\n\nSub\n---\n\ntext\n\n***\n\nmore") == "# Title\n\n## Sub\n\ntext\n\nmore"


def test_blockquote_markers_and_admonition_fences_go():
    assert clean_text(":::tip 提示\n> quoted line\n:::") == "提示\nquoted line"


def test_chinese_prose_passes_through_unchanged():
    text = "第一条 为了保障和规范人民检察院依法履行行政诉讼监督职责，制定本规则。\n\n（一）人民法院对生效判决、裁定的；"
    assert clean_text(text) == text
