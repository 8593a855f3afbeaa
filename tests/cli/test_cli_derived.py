"""CLI subcommands derived from operations declaring ``cli`` (core/cli/derived.py): arguments from
the typed signature, help from the docstring; what cannot be a CLI argument, or would shadow a
command or a global option, is refused when the parser is built."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from collections.abc import Callable
from typing import Annotated, Literal

import pytest
from pydantic import Field, SecretStr

from core.cli import derived
from core.cli import typed as read_typed
from core.errors import InvalidInput
from core.services.declare import Arg, Cli, CliGroup, operation, operations_of
from core.types import Actor


class _Shelves:
    @operation(access="admin", admin_does="count", cli=Cli("count-things"))
    def count_things(self, actor: Actor, kind: Literal["a", "b"], names: list[str],
                     top: Annotated[int, Field(description="how many")] = 3, loud: bool = False,
                     quiet: bool = True, where: str | None = None, tags: list[str] | None = None) -> int:
        """Count things.

        A longer description."""
        return 0


def _parser(*service_classes: type) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = argparse.ArgumentParser(prog="t")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("kb")
    for cls in service_classes:
        derived.register(sub, operations_of("svc", cls))
    return parser, sub


def test_arguments_come_from_the_signature():
    parser, sub = _parser(_Shelves)
    args = parser.parse_args(["count-things", "b", "x", "y", "--top", "7", "--loud", "--no-quiet", "--tags", "t1",
                              "--tags", "t2"])
    assert (args.kind, args.names, args.top, args.loud, args.quiet, args.where, args.tags) == (
        "b", ["x", "y"], 7, True, False, None, ["t1", "t2"])
    defaults = parser.parse_args(["count-things", "a", "x"])
    assert (defaults.top, defaults.loud, defaults.quiet) == (3, False, True)
    with pytest.raises(SystemExit):
        parser.parse_args(["count-things", "c", "x"])  # not one of the Literal's choices
    helped = sub.choices["count-things"].format_help()
    assert "Count things." in helped and "A longer description." in helped and "how many" in helped


def test_what_cannot_be_a_command_is_refused_when_the_parser_is_built():
    class Taken:
        @operation(access="admin", admin_does="x", cli=Cli("kb"))
        def shadow(self, actor: Actor) -> int:
            return 0

    class Reserved:
        @operation(access="admin", admin_does="x", cli=Cli("reserved"))
        def reserved(self, actor: Actor, json: bool = False) -> int:
            return 0

    class Untyped:
        @operation(access="admin", admin_does="x", cli=Cli("untyped"))
        def untyped(self, actor: Actor, blob: dict) -> int:
            return 0

    for cls, message in ((Taken, "already a command"), (Reserved, "CLI's own options"), (Untyped, "cannot be a CLI")):
        with pytest.raises(TypeError, match=message):
            _parser(cls)


_SHELF = CliGroup("shelf", "things on a shelf")


def _pairs(words: list[str]) -> dict:
    return dict(w.split("=", 1) for w in words)


class _Grouped:
    @operation(access="admin", admin_does="x", cli=Cli("put", group=_SHELF, help="put things", args={
        "shelf": Arg(flag="--kb", help="which shelf"),
        "labels": Arg(nargs="+", metavar="K=V", parse=_pairs),
        "text": Arg(flag="--text", from_file="--text-file", missing="give --text or --text-file"),
        "kinds": Arg(help="kinds (repeatable)"),
        "tags": Arg(flag="--tag", repeat=True, parse=lambda ws: [w.upper() for w in ws], default=[]),
        "index": Arg(metavar="position")}))
    def put(self, actor: Actor, shelf: str, labels: dict[str, str], text: str, index: int, tags: list[str],
            kinds: list[Literal["a", "b"]] | None = None) -> int:
        return 0

    @operation(access="admin", admin_does="x", cli=Cli("take", group=_SHELF))
    def take(self, actor: Actor, name: str) -> int:
        """Take a thing."""
        return 0


def test_a_group_and_the_readings_an_arg_changes(tmp_path):
    parser, sub = _parser(_Grouped)
    ops = {op.name: op for op in operations_of("svc", _Grouped)}
    args = parser.parse_args(["shelf", "put", "--kb", "s1", "a=1", "b=2", "3", "--text", "hello",
                              "--kinds", "a", "--kinds", "b", "--tag", "x", "--tag", "y"])
    assert (args.shelf_command, args.shelf, args.index, args.kinds) == ("put", "s1", 3, ["a", "b"])
    values = {p.name: read_typed.value_of(ops["put"], p, args) for p in ops["put"].wire_params()}
    assert values == {"shelf": "s1", "labels": {"a": "1", "b": "2"}, "text": "hello", "index": 3,
                      "tags": ["X", "Y"], "kinds": ["a", "b"]}
    typed = tmp_path / "t.txt"
    typed.write_text("from a file", encoding="utf-8")
    args = parser.parse_args(["shelf", "put", "--kb", "s1", "a=1", "0", "--text-file", str(typed)])
    values = {p.name: read_typed.value_of(ops["put"], p, args) for p in ops["put"].wire_params()}
    assert (values["text"], values["tags"], values["kinds"]) == ("from a file", [], None)
    args = parser.parse_args(["shelf", "put", "--kb", "s1", "a=1", "0"])
    with pytest.raises(InvalidInput, match="give --text or --text-file"):
        read_typed.value_of(ops["put"], ops["put"].signature.parameters["text"], args)
    args = parser.parse_args(["shelf", "put", "--kb", "s1", "a=1", "0", "--text-file", str(tmp_path / "no.txt")])
    with pytest.raises(InvalidInput, match="no such file"):
        read_typed.value_of(ops["put"], ops["put"].signature.parameters["text"], args)
    for wrong in (["shelf", "put", "a=1", "0", "--text", "t"],  # --kb is required
                  ["shelf", "put", "--kb", "s", "a=1", "0", "--text", "t", "--text-file", "f"],  # one or the other
                  ["shelf", "put", "--kb", "s", "a=1", "0", "--kinds", "c"],  # not a choice
                  ["shelf"]):  # a group needs its subcommand
        with pytest.raises(SystemExit):
            parser.parse_args(wrong)
    helped = sub.choices["shelf"].derived_commands.choices["put"].format_help()
    assert "--kb KB" in helped and "[--text TEXT | --text-file TEXT_FILE]" in helped and "position" in helped
    assert "K=V [K=V ...]" in helped and "which shelf" in helped
    listed = sub.choices["shelf"].format_help()
    assert "put things" in listed and "Take a thing." in listed


def test_a_group_registered_later_imports_its_service_only_when_run():
    loaded = []

    def load():
        loaded.append(True)
        return operations_of("svc", _Grouped)

    parser = argparse.ArgumentParser(prog="t")
    sub = parser.add_subparsers(dest="command")
    derived.register_later(sub, _SHELF, load)
    assert "things on a shelf" in parser.format_help() and not loaded
    assert parser.parse_args(["shelf", "take", "cup"]).name == "cup" and loaded == [True]


def test_a_group_may_not_take_a_hand_written_command_name():
    class Taken:
        @operation(access="admin", admin_does="x", cli=Cli("list", group=CliGroup("kb", "")))
        def listing(self, actor: Actor) -> int:
            return 0

    with pytest.raises(TypeError, match="already a command"):
        _parser(Taken)


class _Files:
    @operation(access="admin", admin_does="x", cli=Cli("drop", args={
        "name": Arg(each=True, metavar="names"), "shelf": Arg(flag="--kb", required=True)}))
    def drop(self, actor: Actor, name: str, shelf: str | None = None) -> int:
        return 0

    @operation(access="admin", admin_does="x", cli=Cli("load", args={"data": Arg(path=True, metavar="file")}))
    def load(self, actor: Actor, data: bytes) -> int:
        return 0

    @operation(access="admin", admin_does="x", cli=Cli("dump", output=("-o", "--output"), output_help="write here"))
    def dump(self, actor: Actor, since: datetime | None = None) -> str:
        return ""


def test_several_words_a_file_read_an_output_file_and_a_moment(tmp_path):
    from datetime import timezone

    parser, sub = _parser(_Files)
    ops = {op.name: op for op in operations_of("svc", _Files)}
    args = parser.parse_args(["drop", "--kb", "s", "a", "b"])
    assert (args.name, args.shelf) == (["a", "b"], "s")  # the operation is run once per name
    with pytest.raises(SystemExit):
        parser.parse_args(["drop", "a"])  # --kb is required here, though the operation has a default
    assert "names [names ...]" in sub.choices["drop"].format_help()
    data = tmp_path / "d.csv"
    data.write_bytes(b"q,a\n")
    args = parser.parse_args(["load", str(data)])
    assert read_typed.value_of(ops["load"], ops["load"].signature.parameters["data"], args) == b"q,a\n"
    args = parser.parse_args(["load", str(tmp_path / "absent.csv")])
    with pytest.raises(InvalidInput, match="no such file"):
        read_typed.value_of(ops["load"], ops["load"].signature.parameters["data"], args)
    args = parser.parse_args(["dump", "-o", "out.txt", "--since", "2026-03-01T09:30:00"])
    assert getattr(args, derived._OUTPUT) == "out.txt"
    assert args.since == datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)  # no zone given: UTC
    with pytest.raises(SystemExit):
        parser.parse_args(["dump", "--since", "March"])
    assert "write here" in sub.choices["dump"].format_help()


def test_an_output_file_is_written_and_named_with_what_output_reply_adds(tmp_path):
    class Noted:
        @operation(access="admin", admin_does="x", cli=Cli("export", output=("-o",), output_reply=lambda asked, path: {
            "shelf": asked["shelf"], "written": path}))
        def export(self, actor: Actor, shelf: str) -> str:
            return ""

    [plain] = [op for op in operations_of("svc", _Files) if op.name == "dump"]
    [noted] = operations_of("svc", Noted)
    target = tmp_path / "out.md"
    assert derived._write(plain, {"since": None}, str(target), "# one\n") == {"written": str(target)}
    assert target.read_text(encoding="utf-8") == "# one\n"
    assert derived._write(noted, {"shelf": "s1"}, str(target), "# two\n") == {"shelf": "s1", "written": str(target)}
    assert target.read_text(encoding="utf-8") == "# two\n"
    with pytest.raises(InvalidInput, match="cannot write"):
        derived._write(noted, {"shelf": "s1"}, str(tmp_path / "absent" / "out.md"), "x")


def test_an_output_file_needs_a_text_result_and_one_parameter_repeats():
    class NotText:
        @operation(access="admin", admin_does="x", cli=Cli("count", output=("-o",)))
        def count(self, actor: Actor) -> int:
            return 0

    class TwoEach:
        @operation(access="admin", admin_does="x", cli=Cli("pairs", args={"a": Arg(each=True), "b": Arg(each=True)}))
        def pairs(self, actor: Actor, a: str, b: str) -> int:
            return 0

    for cls, message in ((NotText, "does not return str"), (TwoEach, "only one parameter")):
        with pytest.raises(TypeError, match=message):
            _parser(cls)



class _Renaming:
    @operation(access="admin", admin_does="x", cli=Cli("rename", params=("ref", "name"), args={
        "ref": Arg(metavar="name"), "name": Arg(required=True, metavar="new_name")}))
    def change(self, actor: Actor, ref: str, *, name: str | None = None, colour: str | None = None,
               size: int = 1) -> int:
        return 0

    @operation(access="admin", admin_does="x", cli=Cli("paint", args={"colour": Arg(choices=("red", "blue"))}))
    def paint(self, actor: Actor, colour: str = "red") -> int:
        return 0

    @operation(access="admin", admin_does="x", cli=Cli("look", args={"key": Arg(nargs="?")}))
    def look(self, actor: Actor, key: Annotated[str | None, Field(description="dotted key")] = None) -> int:
        return 0


def test_a_command_over_some_parameters_positional_names_and_choices():
    parser, sub = _parser(_Renaming)
    ops = {op.name: op for op in operations_of("svc", _Renaming)}
    args = parser.parse_args(["rename", "old", "new"])
    assert {p.name: read_typed.value_of(ops["change"], p, args) for p in derived._params(ops["change"])} == {
        "ref": "old", "name": "new"}  # colour and size are not the command's: the operation's defaults stay
    helped = sub.choices["rename"].format_help()
    assert "rename [-h] name new_name" in helped and "colour" not in helped and "size" not in helped
    for wrong in (["rename", "old"], ["rename", "old", "new", "--colour", "red"], ["paint", "--colour", "green"]):
        with pytest.raises(SystemExit):
            parser.parse_args(wrong)
    assert parser.parse_args(["paint"]).colour == "red" and parser.parse_args(["paint", "--colour", "blue"]).colour == "blue"
    assert "{red,blue}" in sub.choices["paint"].format_help()
    assert parser.parse_args(["look"]).key is None and parser.parse_args(["look", "a.b"]).key == "a.b"
    assert "look [-h] [key]" in sub.choices["look"].format_help() and "dotted key" in sub.choices["look"].format_help()


def test_params_and_choices_that_cannot_be_read_are_refused():
    class Unknown:
        @operation(access="admin", admin_does="x", cli=Cli("u", params=("nothing",)))
        def u(self, actor: Actor, a: str = "") -> int:
            return 0

    class LeftOut:
        @operation(access="admin", admin_does="x", cli=Cli("l", params=("b",)))
        def l(self, actor: Actor, a: str, b: str = "") -> int:  # noqa: E743
            return 0

    class NotStr:
        @operation(access="admin", admin_does="x", cli=Cli("n", args={"a": Arg(choices=("1", "2"))}))
        def n(self, actor: Actor, a: int = 1) -> int:
            return 0

    for cls, message in ((Unknown, "names no parameter nothing"), (LeftOut, "leaves out a"), (NotStr, "reads a str")):
        with pytest.raises(TypeError, match=message):
            _parser(cls)


def test_a_later_group_takes_hand_written_commands_after_its_own():
    """``kb``: create, list, rename, delete and sharing derived; index hand-written, listed after them;
    a derived command without help is listed without an empty help line."""
    parser = argparse.ArgumentParser(prog="t")
    sub = parser.add_subparsers(dest="command")
    group = derived.register_later(sub, _SHELF, lambda: operations_of("svc", _Grouped) + operations_of("svc", _Helpless))
    group.when_filled.append(lambda g: g.derived_commands.add_parser("mend", help="mend a shelf").set_defaults(
        handler="mend"))
    listed = group.format_help()
    assert "{put,take,plain,mend}" in listed and "mend a shelf" in listed
    assert not any(line.strip() == "plain" for line in listed.splitlines())
    assert parser.parse_args(["shelf", "mend"]).handler == "mend"


class _Helpless:
    @operation(access="admin", admin_does="x", cli=Cli("plain", group=_SHELF))
    def plain(self, actor: Actor) -> int:
        return 0


class _Queue:
    def __init__(self, rt):
        self._rt = rt

    @operation(access="admin", admin_does="count the queue", cli=Cli("count", store=False))
    def count_queue(self, actor: Actor) -> dict:
        from sqlmodel import select

        from core.db.models import Job

        with self._rt.db.read() as s:
            return {"store_opened": self._rt.store is not None, "jobs": len(list(s.exec(select(Job))))}

    @operation(access="admin", admin_does="x", cli=Cli("stored"))
    def stored(self, actor: Actor) -> int:
        return 0


def test_an_operation_without_the_store_runs_here_while_another_engine_holds_it(data_dir, monkeypatch, capsys):
    """``Cli(store=False)``: run on an engine over the database and blob folder (no store, no
    hand-off), so it answers while the embedded store is held — by a process taking no hand-offs."""
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.engine_database import DatabaseEngine
    from core.errors import PermissionDenied

    for var in ("DATABASE_URL", "QDRANT_URL"):
        monkeypatch.delenv(var, raising=False)
    parser, _ = _parser(_Queue)
    count, stored = operations_of("svc", _Queue)
    args = parser.parse_args(["count"])
    args.data_dir, args.json, args.wait = str(data_dir), True, 0.0
    holder = Engine(RuntimeConfig.from_env(data_dir))  # holds the embedded store; serves no hand-off
    try:
        assert derived.run(count, args) == 0
        assert json.loads(capsys.readouterr().out) == {"store_opened": False, "jobs": 0}
        with DatabaseEngine(RuntimeConfig.from_env(data_dir), [count]) as engine:
            with pytest.raises(PermissionDenied):  # the operation's access rule still applies
                engine.count_queue(Actor(user_id="u1", role="user", name="u1"))
            with pytest.raises(AttributeError, match="needs the vector store"):
                engine.stored  # noqa: B018 (only what it was opened for)
        with pytest.raises(TypeError, match="not declared Cli.store=False.: stored"):
            DatabaseEngine(RuntimeConfig.from_env(data_dir), [stored])
    finally:
        holder.close()


class _Keys:
    def __init__(self, rt):
        self._rt = rt

    @operation(access="admin", admin_does="lock boxes",
               cli=Cli("lock", store=False, args={"password": Arg(secret="new password")}))
    def lock(self, actor: Actor, box: str, password: str) -> dict:
        """Lock a box with a password."""
        return {"box": box, "length": len(password)}  # never the password itself


def test_a_secret_is_never_an_argument_and_is_read_when_the_command_runs(data_dir, monkeypatch, capsys):
    """``Arg(secret=...)``: no word of the command line carries it (``ps`` shows those to every local
    user); standard input's first line does (a terminal: typed twice without echo), and a missing one
    is a clear error that names what is missing, never a value."""
    import io

    for var in ("DATABASE_URL", "QDRANT_URL"):
        monkeypatch.delenv(var, raising=False)
    parser, sub = _parser(_Keys)
    [lock] = operations_of("svc", _Keys)
    args = parser.parse_args(["lock", "cellar"])
    assert not hasattr(args, "password")
    for argv in (["lock", "cellar", "hunter22"], ["lock", "cellar", "--password", "hunter22"]):
        with pytest.raises(SystemExit):
            parser.parse_args(argv)
    capsys.readouterr()
    assert "new password: typed at the terminal (not shown)" in sub.choices["lock"].format_help()
    args.data_dir, args.json, args.wait = str(data_dir), True, 0.0
    monkeypatch.setattr("sys.stdin", io.StringIO("correct horse 1\nnext line\n"))
    assert derived.run(lock, args) == 0
    assert json.loads(capsys.readouterr().out) == {"box": "cellar", "length": 15}  # the line, without its newline
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(InvalidInput, match="^give the new password on standard input$"):
        derived.run(lock, args)

    for misread in (Arg(secret="pin", flag="--pin"), Arg(secret="pin", nargs="?")):
        class Wrong:
            @operation(access="admin", admin_does="x", cli=Cli("wrong", args={"pin": misread}))
            def wrong(self, actor: Actor, pin: str) -> int:
                return 0

        with pytest.raises(TypeError, match="Arg.secret=.... reads a str parameter"):
            _parser(Wrong)

    class Number:
        @operation(access="admin", admin_does="x", cli=Cli("number", args={"pin": Arg(secret="pin")}))
        def number(self, actor: Actor, pin: int) -> int:
            return 0

    with pytest.raises(TypeError, match="Arg.secret=.... reads a str parameter"):
        _parser(Number)


class _Vault:
    @operation(access="admin", admin_does="open vaults",
               cli=Cli("open", params=("door", "pin", "vault"), args={
                   "door": Arg(flag="--door"), "pin": Arg(
                       secret="pin", prompt="vault pin", confirm=False, from_file="--pin-file", metavar="PATH",
                       from_file_help="read the pin from this file (- for standard input)",
                       refuse=("--pin", "--code"))}))
    def open_vault(self, actor: Actor, vault: str, pin: SecretStr, door: str = "front") -> dict:
        return {"vault": vault, "door": door, "masked": isinstance(pin, SecretStr)}


def test_a_credential_comes_from_a_file_or_standard_input_and_a_word_typed_for_it_is_refused(tmp_path, monkeypatch):
    """``Arg(secret=..., from_file=..., refuse=...)``: a credential someone issued (a WebDAV password)
    is read from the file named (- : standard input) or standard input, reaches a ``SecretStr``
    parameter masked, and the option one would try for it is refused naming how to give it, never
    echoing the word; ``Cli(params=...)`` orders the options."""
    import io

    parser, sub = _parser(_Vault)
    [op] = operations_of("svc", _Vault)
    helped = sub.choices["open"].format_help()
    assert "open [-h] [--door DOOR] [--pin-file PATH] vault" in " ".join(helped.split())
    assert "--pin " not in helped and "--code" not in helped and "vault pin: typed at the terminal (not shown)" in helped
    assert "or of the file --pin-file names" in helped

    def read(*argv: str, stdin: str = ""):
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        args = parser.parse_args(["open", *argv])
        return {p.name: read_typed.value_of(op, p, args) for p in derived._params(op)}

    pin_file = tmp_path / "pin.txt"
    pin_file.write_text("4711 \nnext\n", encoding="utf-8")
    from_file = read("cellar", "--pin-file", str(pin_file))
    assert isinstance(from_file["pin"], SecretStr) and from_file["pin"].get_secret_value() == "4711 "
    assert read("cellar", "--pin-file", "-", stdin="0815\n")["pin"].get_secret_value() == "0815"
    assert read("cellar", stdin="0815\r\n")["pin"].get_secret_value() == "0815"
    for argv, stdin, words in (((), "", "^no pin: give it on standard input or with --pin-file PATH$"),
                               ((), "\n", "^no pin: give it"),
                               (("--pin-file", str(tmp_path / "absent")), "0815\n", "cannot read the pin file"),
                               (("--pin", "typed-4711"), "0815\n", "^the pin is never taken on the command line "
                                r"\(other users see it in ps\): give it on standard input or with --pin-file PATH$"),
                               (("--code", "typed-4711"), "0815\n", "^the pin is never taken")):
        with pytest.raises(InvalidInput, match=words):
            read("cellar", *argv, stdin=stdin)

    class Advised:
        @operation(access="admin", admin_does="x", handoff=True, cli=Cli("advised", not_handed_off="run it here"))
        def advised(self, actor: Actor) -> int:
            return 0

    class Metavar:
        @operation(access="admin", admin_does="x", cli=Cli("m", args={"pin": Arg(secret="pin", metavar="PIN")}))
        def m(self, actor: Actor, pin: str) -> int:
            return 0

    for cls, message in ((Advised, "advises an operation the hand-off could run"), (Metavar, "reads a str")):
        with pytest.raises(TypeError, match=message):
            _parser(cls)


class _Searching:
    @operation(access="admin", admin_does="x", cli=Cli("find", help="find things", args={
        "top": Arg(check=lambda v: _refuse_above(v, 10)), "words": Arg(check=lambda v: _refuse_above(len(v), 2))}))
    def find(self, actor: Actor, words: list[str], top: int = 3) -> int:
        """Find things."""
        return 0


def _refuse_above(value: int, most: int) -> None:
    if value > most:
        raise InvalidInput(f"at most {most}, not {value}")


def test_a_check_reads_the_typed_value_before_anything_is_opened():
    parser, _ = _parser(_Searching)
    op = operations_of("svc", _Searching)[0]
    args = parser.parse_args(["find", "a", "b", "--top", "10"])
    assert [read_typed.value_of(op, p, args) for p in op.wire_params()] == [["a", "b"], 10]  # int: argparse's type kept
    for argv, words in ((["find", "a", "--top", "11"], "at most 10, not 11"), (["find", "a", "b", "c"], "at most 2, not 3")):
        args = parser.parse_args(argv)
        with pytest.raises(InvalidInput, match=words):
            [read_typed.value_of(op, p, args) for p in op.wire_params()]
    with pytest.raises(SystemExit):
        parser.parse_args(["find", "a", "--top", "many"])  # argparse's own refusal, as for any int


def test_a_command_registered_later_imports_its_service_only_when_run():
    from core.cli.main import _accept_json_everywhere

    loaded = []

    def load():
        loaded.append(True)
        return operations_of("svc", _Searching)

    parser = argparse.ArgumentParser(prog="t")
    sub = parser.add_subparsers(dest="command")
    derived.register_command_later(sub, "find", "find things", load)
    _accept_json_everywhere(parser)
    assert "find things" in parser.format_help() and not loaded
    args = parser.parse_args(["find", "x", "--top", "4", "--json"])
    assert (args.words, args.top, args.json, loaded) == (["x"], 4, True, [True])
    helped = sub.choices["find"].format_help()
    assert "Find things." in helped and helped.index("--top") < helped.index("--json")  # --json after its own
    with pytest.raises(TypeError, match="0 operations declare it"):
        derived.register_command_later(sub, "find-twice", "", lambda: [*load(), *load()]).fill()


class _Progressing:
    @operation(access="admin", admin_does="x", cli=Cli("build", progress="progress", progress_label="name"))
    def build(self, actor: Actor, name: str, progress: Callable[[int, int, str], None] | None = None) -> int:
        return 0


def test_progress_names_a_callback_and_a_label_the_command_takes():
    _parser(_Progressing)  # accepted

    class NoCallback:
        @operation(access="admin", admin_does="x", cli=Cli("build", progress="name"))
        def build(self, actor: Actor, name: str) -> int:
            return 0

    class NoLabel:
        @operation(access="admin", admin_does="x", cli=Cli("build", progress="progress", progress_label="kb"))
        def build(self, actor: Actor, name: str, progress: Callable[[int, int, str], None] | None = None) -> int:
            return 0

    with pytest.raises(TypeError, match="names no callback parameter 'name'"):
        _parser(NoCallback)
    with pytest.raises(TypeError, match="names no parameter 'kb'"):
        _parser(NoLabel)


def _with_stderr_at_a_terminal(data_dir, *argv: str):
    """``python -m core *argv`` in a child process whose stderr is a terminal (a pty): its result
    (stdout piped) and every byte the terminal was shown."""
    import os
    import pty
    import subprocess
    import sys

    from tests.cli.test_cli import REPO

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update({"RAGDESK_DATA_DIR": str(data_dir), "RAGDESK_EMBEDDING__MODEL": "hash-64"})
    try:
        proc = subprocess.run([sys.executable, "-m", "core", *argv], cwd=REPO, env=env,
                              stdout=subprocess.PIPE, stderr=slave, text=True, timeout=300)
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal's other side is closed: all read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
    return proc, shown


def test_reindex_shows_its_progress_on_a_terminal_and_nothing_else_without_one(data_dir, tmp_path):
    """Cli(progress=...): ``reindex`` at a terminal rewrites one stderr line with the knowledge base's
    progress; with stderr not a terminal, or --json, stderr stays empty."""
    from tests.cli.test_cli import run_cli

    doc = tmp_path / "parking.md"
    doc.write_text("# Parking\n\nVisitors park on level two.\n", encoding="utf-8")
    run_cli(data_dir, "kb", "create", "office")
    run_cli(data_dir, "--json", "ingest", "--kb", "office", str(doc))
    piped = run_cli(data_dir, "reindex", "--kb", "office")
    assert piped.stdout.strip() == "reindex done: 1 files, 1 chunks" and piped.stderr == ""
    proc, shown = _with_stderr_at_a_terminal(data_dir, "reindex", "--kb", "office")
    assert proc.returncode == 0 and proc.stdout.strip() == "reindex done: 1 files, 1 chunks"
    assert "\roffice: " in shown.decode() and "1/1" in shown.decode(), shown


def test_ingest_shows_each_files_progress_on_a_terminal_and_nothing_else_without_one(data_dir, tmp_path):
    """Cli(progress=...) without a label: ``ingest``'s callback names each file itself; at a terminal
    one stderr line is rewritten with it (a blank line after), piped or with --json stderr stays empty."""
    from tests.cli.test_cli import run_cli

    (tmp_path / "parking.md").write_text("# Parking\n\nVisitors park on level two.\n", encoding="utf-8")
    (tmp_path / "lunch.md").write_text("# Lunch\n\nLunch is served at noon.\n", encoding="utf-8")
    run_cli(data_dir, "kb", "create", "office")
    piped = run_cli(data_dir, "ingest", "--kb", "office", str(tmp_path / "parking.md"))
    assert piped.stdout.strip() == "indexed    parking.md  1 chunks" and piped.stderr == ""
    proc, shown = _with_stderr_at_a_terminal(data_dir, "ingest", "--kb", "office", str(tmp_path / "lunch.md"))
    assert proc.returncode == 0 and proc.stdout.strip() == "indexed    lunch.md  1 chunks"
    assert "\rlunch.md: " in shown.decode() and shown.decode().endswith("\n"), shown


def test_doctor_output_carries_every_field_of_the_doctor_report():
    # DoctorOut lists the report's fields by hand (its JSON shape is kept across releases): a field
    # added to the report must be added there too, or the CLI would drop it silently
    from dataclasses import fields

    from core.doctor import DoctorReport
    from core.services.outputs import DoctorOut

    assert {f.name for f in fields(DoctorReport)} | {"healthy"} == set(DoctorOut.model_fields)


class _Tally:
    """A toy batch: ``Cli(check, implied, note, output_text, description)`` and a Literal's choices ordered."""

    def __init__(self, rt):
        self._rt = rt

    @operation(access="admin", admin_does="tally", cli=Cli(
        "tally", store=False, description="", args={"order": Arg(choices=("up", "down")), "word": Arg(nargs="?")},
        params=("word", "words", "order"), check=lambda typed: _one_of(typed),
        implied={"many": lambda typed: typed["words"] is not None},
        out=list[int] | int, reply=lambda typed, counted: counted if typed["many"] else counted[0],
        human=lambda printed: str(printed), note=lambda typed, counted: f"total {sum(counted)}" if typed["many"] else "",
        output=("--report",), output_text=lambda counted: "<p>" + " ".join(map(str, counted)) + "</p>",
        output_metavar="FILE.html"))
    def tally(self, actor: Actor, word: str | None = None, words: list[str] | None = None,
              order: Literal["up", "down"] | None = None, many: bool = False) -> list[int]:
        """Lengths of words; a docstring for Python callers."""
        counted = [len(w) for w in (words if many else [word])]
        return sorted(counted, reverse=order == "down") if order else counted


def _one_of(typed: dict) -> None:
    if bool(typed["word"]) == bool(typed["words"]):
        raise InvalidInput("give a WORD or --words")


def test_a_command_judges_its_arguments_together_implies_one_and_notes_and_reports_beside(data_dir, tmp_path,
                                                                                           monkeypatch, capsys):
    """``Cli(check=...)`` refuses before anything is opened; ``implied`` gives a parameter the command
    does not take; ``note`` follows the text (on stderr with --json); ``output_text`` writes a file
    beside what is printed (its folder checked first) and the note names it; ``description=""``
    leaves the docstring out of --help; ``Arg(choices=...)`` orders a Literal's values."""
    for var in ("DATABASE_URL", "QDRANT_URL"):
        monkeypatch.delenv(var, raising=False)
    Literal["down", "up"] | None  # noqa: B018 (typing caches this Union: the signature's would read down, up)
    parser, sub = _parser(_Tally)
    [tally] = operations_of("svc", _Tally)
    helped = sub.choices["tally"].format_help()
    assert "{up,down}" in helped and "--report FILE.html" in helped and "Python callers" not in helped
    assert "--many" not in helped

    def run(*argv: str, json_out: bool = False) -> tuple[int, str, str]:
        args = parser.parse_args(["tally", *argv])
        args.data_dir, args.json, args.wait = str(data_dir), json_out, 0.0
        code = derived.run(tally, args)
        out, err = capsys.readouterr()
        return code, out, err

    assert run("--words", "a", "--words", "abc", "--order", "down") == (0, "[3, 1]\n\ntotal 4\n", "")
    assert run("word") == (0, "4\n", "")  # one word: no note
    code, out, err = run("--words", "ab", json_out=True)
    assert (code, json.loads(out), err) == (0, [2], "total 2\n")  # stdout stays the JSON
    report = tmp_path / "r.html"
    assert run("--words", "ab", "--words", "c", "--report", str(report)) == (0, f"[2, 1]\n\ntotal 3\nreport: {report}\n", "")
    assert report.read_text(encoding="utf-8") == "<p>2 1</p>"
    assert run("word", "--report", str(report)) == (0, f"4\n\nreport: {report}\n", "")
    for argv, words in ((["--words", "a", "word"], "give a WORD or --words"), ([], "give a WORD or --words"),
                        (["w", "--report", str(tmp_path / "absent" / "r.html")], "cannot write the report: .* is not a folder")):
        args = parser.parse_args(["tally", *argv])
        args.data_dir, args.json, args.wait = str(tmp_path / "never-opened"), False, 0.0
        with pytest.raises(InvalidInput, match=words):
            derived.run(tally, args)
    assert not (tmp_path / "never-opened").exists()  # refused before any engine was opened


def test_what_implied_choices_and_output_text_cannot_be_is_refused():
    class ImpliedTaken:
        @operation(access="admin", admin_does="x", cli=Cli("i", implied={"a": lambda typed: 1}))
        def i(self, actor: Actor, a: int = 0) -> int:
            return 0

    class ImpliedUnknown:
        @operation(access="admin", admin_does="x", cli=Cli("j", params=(), implied={"b": lambda typed: 1}))
        def j(self, actor: Actor, a: int = 0) -> int:
            return 0

    class OtherChoices:
        @operation(access="admin", admin_does="x", cli=Cli("k", args={"a": Arg(choices=("x", "z"))}))
        def k(self, actor: Actor, a: Literal["x", "y"] = "x") -> int:
            return 0

    class TextWithoutOutput:
        @operation(access="admin", admin_does="x", cli=Cli("m", output_text=str))
        def m(self, actor: Actor) -> int:
            return 0

    for cls, message in ((ImpliedTaken, "parameters of the operation the command does not take"),
                         (ImpliedUnknown, "parameters of the operation the command does not take"),
                         (OtherChoices, "not its Literal's values"), (TextWithoutOutput, "needs Cli.output")):
        with pytest.raises(TypeError, match=message):
            _parser(cls)
