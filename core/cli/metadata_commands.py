"""``fields`` and ``meta``: metadata fields of a knowledge base and the values of its files, and
the ``--where`` filter that ``search`` and ``ask`` take (core/metadata/where.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.context import emit, engine_for
from core.errors import InvalidInput
from core.metadata.where import from_cli
from core.names import printable
from core.types import SYSTEM_ACTOR

__all__ = ["add_where_argument", "from_cli", "register"]

WHERE_HELP = ("metadata filter (repeatable, all must hold): field=value, field>=N, field<N, "
              "field=FROM..TO (numbers, dates; an open end allowed), tags=a|b (any of)")


def add_where_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--where", action="append", default=[], metavar="FIELD=VALUE", help=WHERE_HELP)


def _fields_human(rows: list) -> str:
    return "\n".join(f"{r['name']}\t{r['kind']}" + ("\t(automatic)" if r["auto"] else "") for r in rows)


def _rows(fields) -> list[dict]:
    return [{"name": f.name, "kind": f.kind, "auto": f.auto} for f in fields]


def cmd_fields(args: argparse.Namespace) -> int:
    with engine_for(args) as engine:
        if args.fields_command == "add":
            made = engine.define_metadata_field(SYSTEM_ACTOR, args.kb, args.name, args.kind)
            emit(args, _rows([made])[0], lambda r: f"field '{r['name']}' ({r['kind']}) defined")
        elif args.fields_command == "delete":
            engine.delete_metadata_field(SYSTEM_ACTOR, args.kb, args.name)
            emit(args, {"deleted": args.name}, lambda r: f"field '{r['deleted']}' deleted with its values")
        else:
            emit(args, _rows(engine.metadata_fields(SYSTEM_ACTOR, args.kb)), _fields_human)
    return 0


def _values(items: list[str]) -> dict[str, str | None]:
    """``name=value`` pairs (``name=`` removes the value)."""
    out: dict[str, str | None] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise InvalidInput(f"{item!r}: write field=value (field= removes it)")
        out[name.strip()] = value.strip() or None
    return out


def _values_human(r: dict) -> str:
    lines = [f"{r['file_name']} ({r['file_id']})"]
    for name, value in r["values"].items():
        lines.append(f"  {name}: {', '.join(value) if isinstance(value, list) else value}")
    return "\n".join(lines)


def cmd_meta(args: argparse.Namespace) -> int:
    with engine_for(args) as engine:
        if args.meta_command == "set":
            found = engine.set_file_metadata(SYSTEM_ACTOR, args.file_id, _values(args.values))
        elif args.meta_command == "import":
            try:
                data = Path(args.csv).read_bytes()
            except OSError as exc:
                raise InvalidInput(f"cannot read {args.csv}: {exc.strerror}") from None
            report = engine.import_metadata_csv(SYSTEM_ACTOR, args.kb, data)
            payload = {"updated": report.updated, "errors": [vars(e) for e in report.errors]}
            emit(args, payload, lambda p: "\n".join([f"{p['updated']} file(s) updated"]
                                                    + [f"line {e['line']}: {printable(e['message'])}" for e in p["errors"]]))
            return 1 if report.errors else 0
        else:
            found = engine.file_metadata(SYSTEM_ACTOR, args.file_id)
    emit(args, {"file_id": found.file_id, "file_name": found.file_name, "kb_id": found.kb_id, "values": found.values},
         _values_human)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    fi = sub.add_parser("fields", help="metadata fields of a knowledge base (text, number, date, tags)")
    fi.set_defaults(handler=cmd_fields)
    fis = fi.add_subparsers(dest="fields_command", required=True)
    ls = fis.add_parser("list", help="its fields, the automatic ones included")
    ls.add_argument("--kb", required=True)
    add = fis.add_parser("add", help="define a field (owner or admin)")
    add.add_argument("--kb", required=True)
    add.add_argument("name")
    add.add_argument("kind", choices=["text", "number", "date", "tags"])
    rm = fis.add_parser("delete", help="delete a field and every file's value of it")
    rm.add_argument("--kb", required=True)
    rm.add_argument("name")
    for p in (ls, add, rm):
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON")

    me = sub.add_parser("meta", help="metadata values of knowledge-base files")
    me.set_defaults(handler=cmd_meta)
    mes = me.add_subparsers(dest="meta_command", required=True)
    show = mes.add_parser("show", help="a file's values")
    show.add_argument("file_id")
    st = mes.add_parser("set", help="set a file's values: field=value ... (tags: a|b; field= removes it)")
    st.add_argument("file_id")
    st.add_argument("values", nargs="+", metavar="FIELD=VALUE")
    im = mes.add_parser("import", help="set many files' values from a CSV (file column, one column per field)")
    im.add_argument("--kb", required=True)
    im.add_argument("csv", metavar="FILE.csv")
    for p in (show, st, im):
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON")
