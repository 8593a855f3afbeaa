"""The "toy card" format (``.toy``): a first line ``TOYCARD``, then ``key: value`` lines."""

from __future__ import annotations

from pydantic import SecretStr

from core.errors import ParseError
from core.parsers.base import ParseContext
from core.parsers.formats import DocumentFormat, register_format
from core.settings.fields import PluginSettings, secret
from core.types import DocPart, ParsedDoc

MAGIC = b"TOYCARD\n"


class ToyCardSettings(PluginSettings):
    heading: str = "Toy card"
    licence_key: SecretStr = secret("A made-up licence key (proves a format's secret is masked).", "TOY_CARD_LICENCE")


class ToyCardParser:
    name = "toycard"

    def parse(self, data: bytes, source_name: str, ctx: ParseContext) -> ParsedDoc:
        lines = data[len(MAGIC):].decode("utf-8").splitlines()
        pairs = [line.split(":", 1) for line in lines if ":" in line]
        if not pairs:
            raise ParseError(f"{source_name} is a toy card without any 'key: value' line")
        text = "# Toy card\n\n" + "\n".join(f"- **{k.strip()}**: {v.strip()}" for k, v in pairs)
        return ParsedDoc(source_name=source_name, mime="", parts=[DocPart(text=text)], title=source_name)


register_format(DocumentFormat("toycard", ("toy",), ToyCardParser(), "application/x-toycard", "Toy card",
                               settings=ToyCardSettings, sniff=lambda data: data.startswith(MAGIC)))
