import codecs

import pytest

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.html import PARSER, bs4_blocks, parse_html, trafilatura_blocks
from tests.conftest import shared_path
from tests.parsers.office_manifest import manifest_phrases, squash

SHARED_HTML = manifest_phrases("html")

SEMANTIC = """<!doctype html><html><head><meta charset="gbk"><title>知识库部署指南 - 示例网站</title>
<script>var tracking = "SCRIPT_LEAK";</script><style>.x{color:red}</style></head><body>
<header><a href="/">首页</a> <a href="/docs">文档</a> HEADER_LEAK</header>
<nav><ul><li><a href="/a">导航一</a></li><li><a href="/b">NAV_LEAK</a></li></ul></nav>
<main><article><h1>知识库部署指南</h1>
<p>本文介绍如何在一台服务器上部署检索增强问答系统。部署前请确认内存至少八GB，并准备好向量数据库的数据目录。</p>
<h2>硬件要求</h2>
<table><tr><th>组件</th><th>最低配置</th><th>推荐配置</th></tr>
<tr><td>CPU</td><td>2 核</td><td>8 核</td></tr><tr><td>内存</td><td>8 GB</td><td>32 GB</td></tr></table>
<h2>安装步骤</h2><ol><li>下载安装包<ul><li>校验签名</li></ul></li><li>运行安装脚本</li></ol>
<p>安装完成后，访问管理后台并创建第一个知识库，上传文档后即可开始提问。</p>
</article><aside>ASIDE_LEAK 相关文章推荐</aside></main>
<form><input name="q"> FORM_LEAK</form>
<footer>版权所有 FOOTER_LEAK</footer></body></html>"""

DIVSOUP = """<html><head><title>Quarterly results | Example News</title></head><body>
<div class="top-menu"><a href="/">Home</a> | <a href="/world">World</a> | <a href="/biz">Business</a> | MENU_LEAK</div>
<div class="cookie">We use cookies to improve your experience. Accept all COOKIE_LEAK</div>
<div class="wrap"><div class="left-col"><div class="story">
<h1>Quarterly results beat expectations</h1>
<p>The company reported revenue of 4.2 billion dollars for the third quarter, up twelve percent from a year earlier, driven by strong demand for its cloud services in Asia and Europe.</p>
<p>Analysts had expected revenue of about 4.0 billion dollars. The chief executive said the company would keep investing in data centres and in research on efficient models during the coming year.</p>
<p>Shares rose five percent in early trading after the announcement, the largest single-day gain since the spring.</p>
</div>
<div class="comments"><h3>Comments</h3><p>first! COMMENT_LEAK</p></div></div>
<div class="right-col"><div class="widget"><h4>Most read</h4><ul><li><a href="/1">Celebrity wedding photos RELATED_LEAK</a></li><li><a href="/2">Ten tips for summer</a></li><li><a href="/3">Weather this weekend</a></li></ul></div></div></div>
<div class="bottom">About us · Contact · Privacy BOTTOM_LEAK</div></body></html>"""

SEMANTIC_LEAKS = ["SCRIPT_LEAK", "HEADER_LEAK", "NAV_LEAK", "ASIDE_LEAK", "FORM_LEAK", "FOOTER_LEAK"]
DIVSOUP_LEAKS = ["MENU_LEAK", "COOKIE_LEAK", "COMMENT_LEAK", "RELATED_LEAK", "BOTTOM_LEAK"]


@pytest.mark.shared
@pytest.mark.parametrize("name,phrases", SHARED_HTML or [pytest.param("", [], marks=pytest.mark.skip("no MANIFEST"))])
def test_shared_html_has_every_must_appear_phrase(name, phrases):
    path = shared_path("docs", name)
    doc = PARSER.parse(path.read_bytes(), name, ParseContext())
    text = squash(doc.text)
    missing = [p for p in phrases if squash(p) not in text]
    assert not missing, f"{name}: missing {missing}"


@pytest.mark.shared
def test_shared_cp1252_page_decodes_euro_and_accents():
    path = shared_path("docs", "unstructured__fake-html-cp1252.html")
    doc = PARSER.parse(path.read_bytes(), path.name, ParseContext())
    assert doc.metadata["encoding"] == "cp1252"
    assert "15,50 €" in doc.text and "très chaud" in doc.text and "El niño" in doc.text
    assert "\ufffd" not in doc.text
    assert doc.parts[0].text.startswith("# My First Heading")
    assert "```\nDie schöne Frau" in doc.text and "15,50 €.\nL'été" in doc.text  # <pre> keeps its lines


@pytest.mark.shared
def test_shared_title_only_in_head_names_the_text():
    path = shared_path("docs", "unstructured__ideas-page.html")
    doc = PARSER.parse(path.read_bytes(), path.name, ParseContext())
    assert doc.title == "How to Get New Ideas"
    assert doc.text.startswith("# How to Get New Ideas\n")
    assert "store.yahoo.net" not in doc.text  # the tracking script is gone


def test_semantic_chinese_page_keeps_structure_and_drops_boilerplate():
    doc = PARSER.parse(SEMANTIC.encode("gbk"), "deploy.html", ParseContext())
    assert doc.metadata["encoding"] == "gb18030"  # <meta charset="gbk">, decoded by its superset
    assert doc.title == "知识库部署指南 - 示例网站"
    lines = doc.text.splitlines()
    assert lines[0] == "# 知识库部署指南"
    assert "| 组件 | 最低配置 | 推荐配置 |" in lines and "| 内存 | 8 GB | 32 GB |" in lines
    assert "1. 下载安装包" in lines and "    - 校验签名" in lines and "2. 运行安装脚本" in lines
    assert not [leak for leak in SEMANTIC_LEAKS if leak in doc.text]
    table_part = next(p for p in doc.parts if "| CPU |" in p.text)
    assert table_part.heading_path == ("知识库部署指南", "硬件要求")


def test_div_soup_boilerplate_is_dropped_by_the_chosen_extractor():
    doc = PARSER.parse(DIVSOUP.encode(), "news.html", ParseContext())
    assert doc.metadata["extractor"] == "trafilatura"
    assert "Shares rose five percent" in doc.text and doc.text.startswith("# Quarterly results beat expectations")
    assert not [leak for leak in DIVSOUP_LEAKS if leak in doc.text]


def test_comparison_plain_cleaning_leaks_div_boilerplate_that_trafilatura_drops():
    """Why trafilatura: on semantic pages both extract the same text, on div soup plain
    BeautifulSoup cleaning keeps every menu, banner, comment and sidebar."""
    semantic_text = SEMANTIC.encode("gbk").decode("gb18030")
    for extract in (bs4_blocks, trafilatura_blocks):
        text = "\n".join(extract(semantic_text))
        assert "| 内存 | 8 GB | 32 GB |" in text and not [k for k in SEMANTIC_LEAKS if k in text]
    plain = "\n".join(bs4_blocks(DIVSOUP))
    chosen = "\n".join(trafilatura_blocks(DIVSOUP))
    assert [k for k in DIVSOUP_LEAKS if k in plain] == DIVSOUP_LEAKS
    assert [k for k in DIVSOUP_LEAKS if k in chosen] == []
    assert "Analysts had expected revenue" in plain and "Analysts had expected revenue" in chosen


@pytest.mark.parametrize("bom,encoding", [(codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le")])
def test_bom_wins_over_everything(bom, encoding):
    page = "<html><head><meta charset='iso-8859-1'></head><body><h1>标题</h1><p>带字节序标记的页面内容。</p></body></html>"
    doc = PARSER.parse(bom + page.encode(encoding), "bom.html", ParseContext())
    assert "带字节序标记的页面内容。" in doc.text


def test_http_charset_beats_a_missing_meta():
    page = "<html><body><h1>繁體標題</h1><p>這是一個使用大五碼編碼的網頁內容。</p></body></html>"
    doc = parse_html(page.encode("big5"), "https://example.test/tw", ParseContext(), declared_charset="big5")
    assert doc.metadata["encoding"] == "big5" and "這是一個使用大五碼編碼的網頁內容。" in doc.text


def test_undeclared_gbk_page_is_detected():
    page = "<html><body><p>没有声明编码的中文网页，也应当被正确识别出来，而不是显示成乱码字符。</p></body></html>"
    doc = PARSER.parse(page.encode("gbk"), "gbk.html", ParseContext())
    assert "没有声明编码的中文网页" in doc.text


def test_form_labels_do_not_leak_into_paragraphs():
    page = "<html><body><form><label>Name</label><input></form><p>Hello world text</p></body></html>"
    assert PARSER.parse(page.encode(), "f.html", ParseContext()).text == "Hello world text"


def test_page_without_text_fails_clearly():
    with pytest.raises(ParseError, match="no readable text"):
        PARSER.parse(b"<html><body><script>var a = 1;</script><img src='x.png'></body></html>", "e.html", ParseContext())


def test_structure_survives_when_trafilatura_falls_back_to_flat_text():
    """Without an <article>/<main>, trafilatura's fallback mode returned this page as one
    paragraph (heading and table gone); it kept all the text, so the cleaned rendering wins."""
    page = (
        "<html><body><h1>价格表</h1><table><tr><th><p>套餐</p></th><th><p>价格</p></th></tr>"
        "<tr><td><p>基础版</p></td><td><div>99 元</div><div>每月</div></td></tr>"
        "<tr><td>专业版</td><td><ul><li>299 元</li><li>含支持</li></ul></td></tr></table>"
        "<p>Prices are shown per month and include tax for all regions listed above in the table.</p></body></html>"
    )
    flat = trafilatura_blocks(page)
    assert len(flat) == 1  # what trafilatura alone gives (if this changes, the rule may be moot)
    doc = PARSER.parse(page.encode(), "price.html", ParseContext())
    assert doc.metadata["extractor"] == "bs4-clean"
    lines = doc.text.splitlines()
    assert lines[0] == "# 价格表" and "| 基础版 | 99 元 每月 |" in lines and "| 专业版 | 299 元 含支持 |" in lines
