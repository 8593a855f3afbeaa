"""HTML pages as Markdown: main content only, headings, lists and data tables kept.

Two extractors run: trafilatura (finds the main content: drops menus, sidebars, cookie
banners, comment sections even in unlabelled <div> soup) and plain BeautifulSoup cleaning
(drops scripts, forms, nav, aside, page header/footer). When trafilatura keeps at least 90% of
the cleaned text, the page had no other boilerplate and the cleaned version is used: it keeps
structure that trafilatura's fallback mode can flatten. Otherwise trafilatura's choice wins.
Both are rendered by our own Markdown renderer. Comparison: tests/parsers/test_html.py.
"""

from __future__ import annotations

import re

import trafilatura
from bs4 import BeautifulSoup

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.html_charset import decode_html
from core.parsers.html_markdown import html_blocks
from core.types import DocPart, ParsedDoc

MIME = "text/html"
# Main-content extraction must drop more than this share of the plainly cleaned text to be
# preferred over it (measured on the shared pages and the test pages: see tests/parsers/test_html.py).
KEEP_SHARE = 0.9
_NON_CONTENT_TAGS = ["script", "style", "noscript", "template", "form", "iframe", "svg", "canvas", "button",
                     "select", "input", "textarea", "object", "embed"]
_BOILERPLATE_TAGS = ["nav", "aside"]
_BOILERPLATE_ROLES = ["navigation", "banner", "contentinfo", "complementary", "search", "dialog"]


def strip_non_content(soup: BeautifulSoup) -> BeautifulSoup:
    """Remove what is never text to read (scripts, styles, forms, hidden elements), in place."""
    for tag in soup.find_all(_NON_CONTENT_TAGS):
        tag.decompose()
    for tag in soup.find_all(attrs={"hidden": True}):
        tag.decompose()
    for tag in soup.find_all(attrs={"aria-hidden": "true"}):
        tag.decompose()
    return soup


def clean_soup(soup: BeautifulSoup) -> BeautifulSoup:
    """Plain cleaning: also drop nav, aside, ARIA landmarks, and page-level header/footer
    (an <article>'s own header often holds its title, so that one stays)."""
    strip_non_content(soup)
    for tag in soup.find_all(_BOILERPLATE_TAGS):
        tag.decompose()
    for tag in soup.find_all(attrs={"role": _BOILERPLATE_ROLES}):
        tag.decompose()
    for tag in soup.find_all(["header", "footer"]):
        if tag.find_parent(["article", "main"]) is None:
            tag.decompose()
    return soup


def page_title(soup: BeautifulSoup) -> str | None:
    for candidate in (soup.find("title"), soup.find("meta", attrs={"property": "og:title"}), soup.find("h1")):
        if candidate is None:
            continue
        text = candidate.get("content", "") if candidate.name == "meta" else candidate.get_text()
        text = " ".join(str(text).split())
        if text:
            return text
    return None


def bs4_blocks(text: str) -> list[str]:
    soup = clean_soup(BeautifulSoup(text, "lxml"))
    return html_blocks(soup.body or soup)


# trafilatura's XML keeps what its HTML output loses (ordered vs bulleted lists); map its
# vocabulary back onto HTML tags our renderer knows.
_TEI_TAGS = {"doc": "div", "main": "div", "head": "h2", "item": "li", "row": "tr", "cell": "td", "hi": "span",
             "lb": "br", "quote": "blockquote", "ref": "a", "graphic": "img"}


def _tei_to_html(xml: str) -> BeautifulSoup:
    soup = BeautifulSoup(xml, "lxml-xml")
    for tag in soup.find_all(["comments", "fw", "note"]):
        tag.decompose()
    for tag in soup.find_all(True):
        rend = tag.get("rend", "")
        if tag.name == "head":
            tag.name = rend if rend in ("h1", "h2", "h3", "h4", "h5", "h6") else "h2"
        elif tag.name == "list":
            tag.name = "ol" if rend == "ol" else "ul"
        elif tag.name == "cell":
            tag.name = "th" if tag.get("role") == "head" else "td"
        elif tag.name == "code":
            tag.name = "pre" if "\n" in tag.get_text() else "code"
        else:
            tag.name = _TEI_TAGS.get(tag.name, tag.name)
    return soup


def trafilatura_blocks(text: str) -> list[str] | None:
    """Main-content blocks, or None when trafilatura finds no main content."""
    extracted = trafilatura.extract(
        text, output_format="xml", include_tables=True, include_formatting=True, include_links=False,
        include_images=False, include_comments=False, favor_recall=True, deduplicate=False,
    )
    if not extracted:
        return None
    return html_blocks(_tei_to_html(extracted))


_NOT_ALNUM = re.compile(r"[\W_]+")  # re's \w is str.isalnum() plus "_": this keeps exactly the alphanumerics


def _squashed_len(blocks: list[str]) -> int:
    """Letters and digits only, so Markdown table and heading syntax does not count (at C speed:
    a character-by-character count took 4.5 s of a 4 MB page's 9 s)."""
    return sum(len(_NOT_ALNUM.sub("", block)) for block in blocks)


def _first_h1(soup: BeautifulSoup) -> str | None:
    h1 = soup.find("h1")
    text = " ".join(h1.get_text().split()) if h1 is not None else ""
    return text or None


def _split_sections(blocks: list[str]) -> list[DocPart]:
    parts: list[DocPart] = []
    path: list[tuple[int, str]] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            parts.append(DocPart(text="\n\n".join(current), heading_path=tuple(t for _, t in path)))
            current.clear()

    for block in blocks:
        hashes = len(block) - len(block.lstrip("#"))
        if 1 <= hashes <= 6 and block[hashes:hashes + 1] == " " and "\n" not in block:
            flush()
            while path and path[-1][0] >= hashes:
                path.pop()
            path.append((hashes, block[hashes + 1:].strip()))
        current.append(block)
    flush()
    return parts


def parse_html(
    data: bytes, source_name: str, ctx: ParseContext, *, declared_charset: str | None = None
) -> ParsedDoc:
    text, encoding, warnings = decode_html(data, declared_charset)
    soup = BeautifulSoup(text, "lxml")
    title = page_title(soup)
    strip_non_content(soup)  # trafilatura would otherwise glue form labels into the text
    for pre in soup.find_all("pre"):
        if pre.find("code") is None:  # trafilatura keeps line breaks only inside <code>
            pre.string = pre.get_text()
            pre.string.wrap(soup.new_tag("code"))
    main_blocks = trafilatura_blocks(str(soup))
    cleaned_blocks = bs4_blocks(text)
    if main_blocks is None:
        blocks, extractor = cleaned_blocks, "bs4-clean"
        if blocks:
            warnings.append("no main article found; used the whole page with navigation, headers and footers removed")
    elif _squashed_len(main_blocks) >= KEEP_SHARE * _squashed_len(cleaned_blocks):
        # trafilatura kept (nearly) everything: the page had no boilerplate beyond what plain
        # cleaning removes, and our rendering keeps the headings and tables that trafilatura's
        # fallback mode sometimes flattens into a single paragraph
        blocks, extractor = cleaned_blocks, "bs4-clean"
    else:
        blocks, extractor = main_blocks, "trafilatura"
        # trafilatura moves the page's main heading into its metadata; keep it in the text
        h1 = _first_h1(clean_soup(soup))
        if h1 and not any(h1 in block for block in blocks):
            blocks.insert(0, f"# {h1}")
    if not any(b.strip() for b in blocks):
        raise ParseError("the HTML page has no readable text")
    if title and not any(block.startswith("# ") or title in block for block in blocks):
        blocks.insert(0, f"# {title}")  # a title shown only in the browser tab still names the text
    return ParsedDoc(
        source_name=source_name, mime=MIME, parts=_split_sections(blocks), title=title,
        metadata={"encoding": encoding, "extractor": extractor}, warnings=warnings,
    )


class HtmlParser:
    name = "html"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        return parse_html(data, source_name, ctx)


PARSER = HtmlParser()
