"""Web pages added by URL, as a source: each sync re-fetches them through the URL loader
(and so through its SSRF guard); a page whose text changed is re-ingested."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

from core.errors import CoreError
from core.ingest.service import Upload
from core.sources.base import Listing, RemoteItem
from core.types import ParsedDoc

Fetcher = Callable[[str], ParsedDoc]  # url -> parsed page; raises FetchError (guarded loader)


@dataclass
class WebPagesSource:
    urls: list[str]
    fetch_page: Fetcher
    kind: str = "web"

    def listing(self, cursor: str) -> Listing:
        items, errors = [], {}
        for url in self.urls:
            try:
                doc = self.fetch_page(url)
            except CoreError as exc:
                errors[url] = exc.message
                continue
            version = hashlib.sha256(doc.text.encode("utf-8")).hexdigest()[:32]
            items.append(RemoteItem(url, url, doc.mime or "text/html", version, meta={"url": url}))
        return Listing(items=items, full=True, errors=errors)

    def fetch(self, item: RemoteItem) -> Upload:
        # the ingest pipeline fetches it again through the same guarded loader
        return Upload.from_url(item.item_id)
