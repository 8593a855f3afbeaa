"""Result post-processing: URLs de-duplicated in order, the domain filter."""

from __future__ import annotations

from urllib.parse import urlsplit

from core.websearch.base import SearchResult


def dedupe(results: list[SearchResult]) -> list[SearchResult]:
    """The first result for each URL, in the order they came (queries in order, then rank)."""
    seen: set[str] = set()
    out = []
    for r in results:
        if r.link not in seen:
            seen.add(r.link)
            out.append(r)
    return out


def host_allowed(url: str, domains: list[str]) -> bool:
    """True when the URL's host is one of ``domains`` or a subdomain of one (empty list: all).
    ``example.com`` admits ``docs.example.com`` but not ``badexample.com`` nor ``example.com.evil.io``."""
    if not domains:
        return True
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if not host:
        return False
    for entry in domains:
        domain = entry.strip().lower().lstrip("*").strip(".")
        if domain and (host == domain or host.endswith("." + domain)):
            return True
    return False


def filter_domains(results: list[SearchResult], domains: list[str]) -> tuple[list[SearchResult], list[SearchResult]]:
    """(kept, dropped)."""
    kept = [r for r in results if host_allowed(r.link, domains)]
    return kept, [r for r in results if r not in kept]
