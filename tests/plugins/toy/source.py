"""The toy remote source: ``GET {base_url}/items`` lists ``[{"id", "name", "version"}]``,
``GET {base_url}/items/<id>`` is the item's bytes; both need ``Authorization: Token <token>``."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from pydantic import SecretStr

from core.errors import CoreError, InvalidInput
from core.ingest.service import Upload
from core.settings.fields import PluginSettings, reveal, secret
from core.sources.base import Listing, RemoteItem, SourceUnavailable
from core.sources.plugin import SourceContext, SourceKind, register_source_kind


class ToySourceSettings(PluginSettings):
    base_url: str = ""
    token: SecretStr = secret("The toy source's token.", "TOY_SOURCE_TOKEN")


@dataclass
class ToySource:
    base_url: str
    token: str
    shelf: str
    kind: str = "toy"

    def _get(self, path: str) -> httpx.Response:
        response = httpx.get(f"{self.base_url.rstrip('/')}/{path}", headers={"Authorization": f"Token {self.token}"},
                             params={"shelf": self.shelf}, timeout=10, trust_env=False)
        if response.status_code != 200:
            raise SourceUnavailable(f"the toy source answered HTTP {response.status_code}")
        return response

    def listing(self, cursor: str) -> Listing:
        items = [RemoteItem(i["id"], i["name"], "text/markdown", i["version"]) for i in self._get("items").json()]
        return Listing(items=items, full=True)

    def fetch(self, item: RemoteItem) -> Upload:
        try:
            return Upload(item.name, self._get(f"items/{item.item_id}").content)
        except SourceUnavailable as exc:
            raise CoreError(exc.message) from None


def _open(ctx: SourceContext) -> ToySource:
    own: ToySourceSettings = ctx.own
    return ToySource(own.base_url, reveal(own.token), ctx.row.config["shelf"])


def _check(config: dict) -> dict:
    if not str(config.get("shelf", "")).strip():
        raise InvalidInput("a toy source needs a shelf")
    return {"shelf": str(config["shelf"]).strip()}


register_source_kind(SourceKind("toy", open=_open, settings=ToySourceSettings, check_config=_check,
                                title=lambda config: f"Toy shelf {config['shelf']}"))
