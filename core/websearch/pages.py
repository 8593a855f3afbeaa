"""Loading result pages: concurrently, through the project's URL loader (``core/parsers/url.py``).

Every page goes through the SSRF guard there (a result pointing at a private, loopback or
link-local address is refused before any connection), its size and time caps and its
content-type dispatch (HTML main content, PDF, text, ...). One page that fails is skipped alone.
OCR is off for web pages: a scanned PDF found by a search is not worth minutes of an answer.
"""

from __future__ import annotations

import logging
import ssl
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx

from core.errors import BlockedAddress, CoreError
from core.parsers.base import ParseContext
from core.settings.model import ParsingSettings
from core.types import ParsedDoc

log = logging.getLogger(__name__)


@dataclass
class LoadedPage:
    url: str
    doc: ParsedDoc


@dataclass
class PageFailure:
    url: str
    reason: str
    blocked: bool = False  # refused by the SSRF guard (never connected)


def _transport(parsing: ParsingSettings, verify: bool) -> httpx.BaseTransport | None:
    """None: the loader's own guarded transport. Only certificate checks switched off need another."""
    if verify:
        return None
    from core.parsers.url_guard import AllowList
    from core.parsers.url_transport import GuardedTransport

    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return GuardedTransport(AllowList.of(parsing), context)


def load_one(url: str, parsing: ParsingSettings, verify: bool) -> LoadedPage | PageFailure:
    from core.parsers.url import fetch_url  # lazy: pulls the HTML and transcript libraries

    try:
        doc = fetch_url(url, ParseContext(settings=parsing), transport=_transport(parsing, verify))
    except BlockedAddress as exc:
        return PageFailure(url, exc.message, blocked=True)
    except CoreError as exc:
        return PageFailure(url, exc.message)
    except Exception as exc:  # a parser bug on one odd page: that page fails alone, the log keeps why
        log.exception("loading web search result %s failed", url)
        return PageFailure(url, f"unexpected error ({type(exc).__name__})")
    if not doc.text.strip():
        return PageFailure(url, "no readable text")
    return LoadedPage(url, doc)


def load_pages(urls: list[str], parsing: ParsingSettings, *, verify: bool,
               concurrency: int) -> tuple[list[LoadedPage], list[PageFailure]]:
    """(loaded pages in the order of ``urls``, failures), at most ``concurrency`` at a time."""
    if not urls:
        return [], []
    parsing = parsing.model_copy(update={"ocr_enabled": False})
    with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(urls))), thread_name_prefix="ragdesk-web") as pool:
        outcomes = list(pool.map(lambda u: load_one(u, parsing, verify), urls))
    loaded = [o for o in outcomes if isinstance(o, LoadedPage)]
    return loaded, [o for o in outcomes if isinstance(o, PageFailure)]
