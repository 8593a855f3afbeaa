"""Metadata fields and values (core/metadata/): every operation checks the actor — reading the
knowledge base to list, its owner or an admin to change."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from core.metadata import cli_text, csv_io, store
from core.metadata.api_models import FieldDeleted, FieldOut, FileMetadataOut, MetadataImportOut
from core.metadata.csv_io import MetadataImportReport
from core.metadata.store import FieldInfo, FileMetadata
from core.services.cli_groups import FIELDS, META
from core.services.declare import Arg, Cli, Http, Remote, operation
from core.services.runtime import Runtime
from core.types import Actor

TAG = "metadata"
KB = {"kb": "ref"}  # the API names a knowledge base "kb" (its id or name)
MAX_VALUES = 60
MAX_CSV_KB = 20 * 1024
KB_OPTION = {"ref": Arg(flag="--kb")}


def _decoded_csv(args: dict) -> dict:
    from core.curated.csv_io import decode

    return {**args, "data": decode(args["data"])}  # bytes read by the CLI travel as text


class MetadataService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    @operation(handoff=True, http=Http("GET", "/api/v1/kbs/{kb}/fields", rename=KB, out=list[FieldOut], tag=TAG,
                                       summary="A knowledge base's metadata fields, the automatic ones included"),
               cli=Cli("list", group=FIELDS, help="its fields, the automatic ones included", args=KB_OPTION,
                       human=cli_text.fields_text))
    def metadata_fields(self, actor: Actor, ref: str) -> list[FieldInfo]:
        return store.list_fields(self._rt.db, actor, ref)

    @operation(handoff=True, http=Http("POST", "/api/v1/kbs/{kb}/fields", rename=KB, out=FieldOut, tag=TAG,
                                       status_code=201, example={"name": "year", "kind": "number"},
                                       summary="Define a metadata field (text, number, date, tags; owner or admin)"),
               cli=Cli("add", group=FIELDS, help="define a field (owner or admin)", args=KB_OPTION,
                       human=lambda r: f"field '{r['name']}' ({r['kind']}) defined"))
    def define_metadata_field(self, actor: Actor, ref: str, name: Annotated[str, Field(min_length=1, max_length=40)],
                              kind: Literal["text", "number", "date", "tags"]) -> FieldInfo:
        return store.define_field(self._rt.db, self._rt.store, actor, ref, name, kind)

    @operation(handoff=True, http=Http("DELETE", "/api/v1/kbs/{kb}/fields", rename=KB, out=FieldDeleted,
                                       tag=TAG, reply=lambda asked, _: {"deleted": asked["name"]},
                                       example={"name": "year"},
                                       summary="Delete a metadata field and every file's value of it (owner or admin)"),
               cli=Cli("delete", group=FIELDS, help="delete a field and every file's value of it", args=KB_OPTION,
                       reply=lambda asked, _: {"deleted": asked["name"]},
                       human=lambda r: f"field '{r['deleted']}' deleted with its values"))
    def delete_metadata_field(self, actor: Actor, ref: str, name: str) -> None:
        store.delete_field(self._rt.db, self._rt.store, actor, ref, name)

    @operation(handoff=True, http=Http("GET", "/api/v1/files/{file_id}/metadata", out=FileMetadataOut, tag=TAG,
                                       summary="A file's metadata values, the automatic ones included"),
               cli=Cli("show", group=META, help="a file's values", human=cli_text.file_values_text))
    def file_metadata(self, actor: Actor, file_id: str) -> FileMetadata:
        return store.file_values(self._rt.db, actor, file_id)

    @operation(handoff=True, http=Http("PUT", "/api/v1/files/{file_id}/metadata", out=FileMetadataOut, tag=TAG,
                                       example={"values": {"year": 2025}},
                                       summary="Set a file's metadata values (null removes one; owner or admin); "
                                               "its chunks' payload changes at once, nothing is re-embedded"),
               cli=Cli("set", group=META, help="set a file's values: field=value ... (tags: a|b; field= removes it)",
                       args={"values": Arg(nargs="+", metavar="FIELD=VALUE", parse=cli_text.values)},
                       human=cli_text.file_values_text))
    def set_file_metadata(self, actor: Actor, file_id: str,
                          values: Annotated[dict[str, Any], Field(max_length=MAX_VALUES)]) -> FileMetadata:
        return store.set_values(self._rt.db, self._rt.store, actor, file_id, values)

    @operation(handoff=Remote(prepare=_decoded_csv),
               http=Http("POST", "/api/v1/kbs/{kb}/metadata/import", rename={**KB, "csv": "data"},
                         out=MetadataImportOut, tag=TAG, max_body_kb=MAX_CSV_KB, example={"csv": "file,year\n"},
                         summary="Set many files' values from CSV text (a 'file' column, then one per field); "
                                 "a bad row fails alone, by line, and every good row is stored"),
               cli=Cli("import", group=META,
                       help="set many files' values from a CSV (file column, one column per field)",
                       args={**KB_OPTION, "data": Arg(metavar="FILE.csv", parse=cli_text.csv_bytes)},
                       human=cli_text.import_text, exit=lambda r: 1 if r["errors"] else 0))
    def import_metadata_csv(self, actor: Actor, ref: str, data: bytes | str) -> MetadataImportReport:
        return csv_io.import_csv(self._rt.db, self._rt.store, actor, ref, data)
