"""Metadata fields and values (core/metadata/): every operation checks the actor — reading the
knowledge base to list, its owner or an admin to change."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from core.metadata import csv_io, store
from core.metadata.api_models import FieldDeleted, FieldOut, FileMetadataOut, MetadataImportOut
from core.metadata.csv_io import MetadataImportReport
from core.metadata.store import FieldInfo, FileMetadata
from core.services.declare import Http, Remote, operation
from core.services.runtime import Runtime
from core.types import Actor

TAG = "metadata"
KB = {"kb": "ref"}  # the API names a knowledge base "kb" (its id or name)
MAX_VALUES = 60
MAX_CSV_KB = 20 * 1024


def _decoded_csv(args: dict) -> dict:
    from core.curated.csv_io import decode

    return {**args, "data": decode(args["data"])}  # bytes read by the CLI travel as text


class MetadataService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    @operation(handoff=True, http=Http("GET", "/api/v1/kbs/{kb}/fields", rename=KB, out=list[FieldOut], tag=TAG,
                                       summary="A knowledge base's metadata fields, the automatic ones included"))
    def metadata_fields(self, actor: Actor, ref: str) -> list[FieldInfo]:
        return store.list_fields(self._rt.db, actor, ref)

    @operation(handoff=True, http=Http("POST", "/api/v1/kbs/{kb}/fields", rename=KB, out=FieldOut, tag=TAG,
                                       status_code=201, example={"name": "year", "kind": "number"},
                                       summary="Define a metadata field (text, number, date, tags; owner or admin)"))
    def define_metadata_field(self, actor: Actor, ref: str, name: Annotated[str, Field(min_length=1, max_length=40)],
                              kind: Literal["text", "number", "date", "tags"]) -> FieldInfo:
        return store.define_field(self._rt.db, self._rt.store, actor, ref, name, kind)

    @operation(handoff=True, http=Http("DELETE", "/api/v1/kbs/{kb}/fields", rename=KB, out=FieldDeleted,
                                       tag=TAG, reply=lambda asked, _: {"deleted": asked["name"]},
                                       example={"name": "year"},
                                       summary="Delete a metadata field and every file's value of it (owner or admin)"))
    def delete_metadata_field(self, actor: Actor, ref: str, name: str) -> None:
        store.delete_field(self._rt.db, self._rt.store, actor, ref, name)

    @operation(handoff=True, http=Http("GET", "/api/v1/files/{file_id}/metadata", out=FileMetadataOut, tag=TAG,
                                       summary="A file's metadata values, the automatic ones included"))
    def file_metadata(self, actor: Actor, file_id: str) -> FileMetadata:
        return store.file_values(self._rt.db, actor, file_id)

    @operation(handoff=True, http=Http("PUT", "/api/v1/files/{file_id}/metadata", out=FileMetadataOut, tag=TAG,
                                       example={"values": {"year": 2025}},
                                       summary="Set a file's metadata values (null removes one; owner or admin); "
                                               "its chunks' payload changes at once, nothing is re-embedded"))
    def set_file_metadata(self, actor: Actor, file_id: str,
                          values: Annotated[dict[str, Any], Field(max_length=MAX_VALUES)]) -> FileMetadata:
        return store.set_values(self._rt.db, self._rt.store, actor, file_id, values)

    @operation(handoff=Remote(prepare=_decoded_csv),
               http=Http("POST", "/api/v1/kbs/{kb}/metadata/import", rename={**KB, "csv": "data"},
                         out=MetadataImportOut, tag=TAG, max_body_kb=MAX_CSV_KB, example={"csv": "file,year\n"},
                         summary="Set many files' values from CSV text (a 'file' column, then one per field); "
                                 "a bad row fails alone, by line, and every good row is stored"))
    def import_metadata_csv(self, actor: Actor, ref: str, data: bytes | str) -> MetadataImportReport:
        return csv_io.import_csv(self._rt.db, self._rt.store, actor, ref, data)
