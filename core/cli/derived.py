"""CLI subcommands derived from operations that declare ``cli`` (core/services/declare.py: ``Cli``).

Each becomes ``python -m core <name>``: a parameter without a default is a positional argument, one
with a default an option (``--top-k``; a bool ``--flag`` / ``--no-flag``; a list repeats the
option; a ``Literal`` gives choices); the help is the method's docstring (a parameter's from its
``Annotated[..., Field(description=...)]``). It runs as the local admin like every command, through
the hand-off when the operation declares one and another process holds the store, and prints the
declared output model (``--json``: its JSON). ``Cli(group=CliGroup(...))`` puts the command under a
group (``fields list``: the group's subcommand is read into ``<group>_command``), ``Cli(args=...)``
changes one parameter's reading (``Arg``: an option's flag, a metavar, a help, words parsed by the
declaring module, a ``--x-file`` alternative, several words for an operation run once per word
(``each``), a file's path read as the value's bytes (``path``), a positional argument over a parameter
with a default (``required``) or one that may be left out (``nargs="?"``), choices of a plain str
(``choices``), a secret never typed as an argument (``secret``: read from the terminal without echo,
twice (once: ``confirm=False``), or from standard input's first line, or a file's (``from_file``),
when the command runs; an option someone would type it with refused, saying how to give it
(``refuse``: ``--password`` too, lest argparse read it as ``--password-file``; ``refusal``: its own
words); the help says so), a check of the value before anything is opened (``check``, a secret's
too)), ``Cli(params=...)`` the parameters the command takes when not all (and their order),
``Cli(reply=..., exit=...)`` what is printed and the exit code, ``Cli(output=("-o", "--output"))``
an option writing the result to a file (``output_reply`` what is printed then, when more than the
path), ``Cli(store=False)`` an operation run here on an engine without the vector store
(core/engine_database.py: beside any process holding it, never handed off), ``Cli(not_handed_off=...)``
the advice of an operation's refusal when another process holds the store and it is not handed
off, ``Cli(progress=...)`` the operation's progress callback, a line of stderr at a terminal; ``ask`` and ``compare`` use
``Cli(check, implied, note, output_text, description)`` (declare.py says what each does). Core's services and
plugins' come here alike (core/cli/commands.py, core/services/plugin.py); a name already taken by a hand-written command is refused, never shadowed.
Plugins' commands are made when the parser is (core/cli/main.py), after core's, at the end of the
command list; a built-in plugin's group keeps its place among core's with ``reserve_group``.
Core's groups are ``register_later`` (its commands of their own, ``ingest``, ``search``, ``doctor``,
``reindex``, ``ask``, ``compare``: ``register_command_later``): named in the command list at once, their subcommands or arguments made
(and their service imported) only when run or their help shown; a group's hand-written
subcommands (``kb index``), or a command's hand-written option (``ingest --detach``), are added
after them by a ``when_filled`` hook. What was typed is read into the operation's values by
core/cli/typed.py.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import sys
import typing
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import SecretStr, TypeAdapter

from core.cli.context import database_engine, emit, engine_for, progress_printer
from core.cli.typed import FROM_FILE, PLAIN, REFUSED, moment, unwrap, value_of
from core.errors import InvalidInput
from core.names import printable
from core.services.declare import Arg, CliGroup, Operation, is_callback
from core.types import SYSTEM_ACTOR

_RESERVED = frozenset({"json", "data_dir", "wait", "verbose", "command", "handler"})
_SCALARS = (str, int, float)
_OUTPUT = "output__file"  # the dest of a Cli's ``output`` option


def _metavar(flag: str) -> str:
    """What argparse would call an option's value had the parameter been named after the flag."""
    return flag.lstrip("-").replace("-", "_").upper()


def _argument(parser: argparse.ArgumentParser, op: Operation, param: inspect.Parameter, hint: Any,
              arg: Arg) -> None:
    kind, description = unwrap(hint)
    if param.name in _RESERVED:
        raise TypeError(f"{op.name}(): parameter {param.name!r} is one of the CLI's own options")
    if arg.secret:  # no argument: run() reads it (_secret), from a file when one is named
        _secret_options(parser, op, param, kind, arg)
        return
    required = param.default is inspect.Parameter.empty or arg.required
    given = (arg.flag,) if isinstance(arg.flag, str) else arg.flag
    flags = tuple(f for f in given if f) or ("--" + param.name.replace("_", "-"),)
    spec: dict[str, Any] = {"help": arg.help or description or None}
    origin = typing.get_origin(kind)
    if arg.each or arg.path:  # words: several for an operation run once each; a file's path
        if not required or arg.flag:
            raise TypeError(f"{op.name}(): Arg(each/path) reads a positional parameter without a default")
        spec["type"] = str
        if arg.each:
            spec["nargs"] = "+"
    elif arg.parse is not None:  # the declaring module reads the words itself
        if arg.nargs:
            spec["nargs"] = arg.nargs
        if arg.repeat:
            spec["action"] = "append"
    elif kind is bool:
        if required:
            raise TypeError(f"{op.name}(): a bool parameter needs a default to be a CLI flag")
        parser.add_argument(flags[0] if not param.default else "--no-" + param.name.replace("_", "-"),
                            dest=param.name, action="store_false" if param.default else "store_true", **spec)
        return
    elif origin is Literal:
        # Arg(choices=...) orders them: typing's cache may hand back an equal Literal made first
        # elsewhere in another order (Literal["a", "b"] | None is Literal["b", "a"] | None)
        if arg.choices and set(arg.choices) != set(typing.get_args(kind)):
            raise TypeError(f"{op.name}(): Arg(choices=...) of {param.name!r} are not its Literal's values")
        spec["choices"] = list(arg.choices or typing.get_args(kind))
        spec["type"] = type(spec["choices"][0])
    elif arg.choices:  # a plain str the operation checks itself, offered as choices here
        if kind is not str:
            raise TypeError(f"{op.name}(): Arg(choices=...) reads a str parameter")
        spec.update(choices=list(arg.choices), type=str)
    elif origin in (list, tuple) and (typing.get_args(kind)[0] in _SCALARS
                                      or typing.get_origin(typing.get_args(kind)[0]) is Literal):
        item = typing.get_args(kind)[0]
        if typing.get_origin(item) is Literal:
            spec["choices"] = list(typing.get_args(item))
            item = type(spec["choices"][0])
        spec["type"] = item
        spec["nargs" if required else "action"] = "+" if required else "append"
    elif kind in _SCALARS:
        spec["type"] = kind
    elif kind is datetime:
        spec["type"] = moment
    else:
        raise TypeError(f"{op.name}(): parameter {param.name!r} of type {kind!r} cannot be a CLI argument")
    if arg.metavar:
        spec["metavar"] = arg.metavar
    elif arg.flag and "choices" not in spec:
        spec["metavar"] = _metavar(flags[-1])
    if required and not arg.flag:
        parser.add_argument(param.name, **spec)
        return
    if arg.nargs == "?" and not arg.flag and arg.parse is None:  # a positional that may be left out
        parser.add_argument(param.name, nargs="?", default=param.default, **spec)
        return
    if required:  # an option that must be given: by argparse, or by run() when it has its own words
        own = arg.missing or arg.from_file or arg.default is not inspect.Parameter.empty
        spec.update({"default": None} if own else {"required": True})
    else:
        spec["default"] = param.default
    target = parser.add_mutually_exclusive_group() if arg.from_file else parser
    target.add_argument(*flags, dest=param.name, **spec)
    if arg.from_file:
        target.add_argument(arg.from_file, dest=param.name + FROM_FILE, metavar=_metavar(arg.from_file),
                            help=arg.from_file_help)


def _secret_options(parser: argparse.ArgumentParser, op: Operation, param: inspect.Parameter, kind: Any,
                    arg: Arg) -> None:
    """``Arg(secret=...)``'s options: the file its first line is read from, and the ones refused."""
    own = Arg(secret=arg.secret, help=arg.help, prompt=arg.prompt, confirm=arg.confirm, refuse=arg.refuse,
              refusal=arg.refusal, from_file=arg.from_file, from_file_help=arg.from_file_help, metavar=arg.metavar,
              check=arg.check)
    if (kind not in (str, SecretStr) or arg != own or (arg.metavar and not arg.from_file)
            or (arg.refusal and not arg.refuse)):
        raise TypeError(f"{op.name}(): Arg(secret=...) reads a str parameter, never from the command line")
    if arg.from_file:
        parser.add_argument(arg.from_file, dest=param.name + FROM_FILE,
                            metavar=arg.metavar or _metavar(arg.from_file), help=arg.from_file_help)
    refused = (arg.refuse,) if isinstance(arg.refuse, str) else arg.refuse
    if any(refused):
        parser.add_argument(*refused, dest=param.name + REFUSED, help=argparse.SUPPRESS)


def _params(op: Operation) -> list[inspect.Parameter]:
    """The parameters the command takes: ``Cli(params=...)``'s, or every one that crosses a process boundary."""
    wire = op.wire_params()
    if op.cli.params is None:
        return wire
    named = {p.name: p for p in wire}
    unknown = [name for name in op.cli.params if name not in named]
    if unknown:
        raise TypeError(f"{op.name}(): Cli(params=...) names no parameter {', '.join(unknown)}")
    left = [p.name for p in wire if p.name not in op.cli.params and p.default is inspect.Parameter.empty]
    if left:
        raise TypeError(f"{op.name}(): Cli(params=...) leaves out {', '.join(left)}, which has no default")
    return [named[name] for name in op.cli.params]  # in its order: the order of the options in the help


def _out(op: Operation) -> TypeAdapter:
    declared = op.cli.out or (op.routes[0].out if op.routes else None)
    return TypeAdapter(declared) if declared is not None else op.output


def _rows(value: Any) -> str:
    """The text form without ``--json``: a row per line, its fields side by side."""
    rows = value if isinstance(value, list) else [value]
    return "\n".join("  ".join(str(v) for v in row.values()) if isinstance(row, dict) else str(row)
                     for row in rows) or "(none)"


def _write(op: Operation, kwargs: dict, target: str, text: str) -> Any:
    """``Cli(output=...)``: the result written to ``target``; what is printed then."""
    try:
        Path(target).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"cannot write {target}: {exc.strerror}") from None
    return op.cli.output_reply(kwargs, target) if op.cli.output_reply else {"written": target}


def _output_name(op: Operation) -> str:
    """What ``Cli(output_text=...)``'s file is called in the messages: its option's name (``report``)."""
    return op.cli.output[-1].lstrip("-").replace("-", " ")


def _writable_folder(op: Operation, target: str) -> None:
    """``Cli(output_text=...)``: the file's folder checked before the operation runs (it may be long)."""
    folder = Path(target).parent
    if not folder.is_dir():
        raise InvalidInput(f"cannot write the {_output_name(op)}: {folder} is not a folder")


def _write_beside(op: Operation, target: str, result: Any) -> str:
    """``Cli(output_text=...)``: its text of the result written to ``target``; the note's line."""
    try:
        Path(target).write_text(op.cli.output_text(result), encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"cannot write the {_output_name(op)} {target}: {exc.strerror}") from None
    return f"{_output_name(op)}: {target}"


def _say(args: argparse.Namespace, note: str) -> None:
    """``Cli(note=...)``: after the text, a blank line between; on stderr with --json."""
    if not note:
        return
    if args.json:
        print(printable(note), file=sys.stderr)
    else:
        print(printable("\n" + note))


def run(op: Operation, args: argparse.Namespace) -> int:
    kwargs = {p.name: value_of(op, p, args) for p in _params(op)}
    if op.cli.check is not None:  # the arguments together, in the command line's words
        op.cli.check(kwargs)
    kwargs.update({name: make(kwargs) for name, make in op.cli.implied.items()})
    target = getattr(args, _OUTPUT, None) if op.cli.output else None
    if target and op.cli.output_text:
        _writable_folder(op, target)
    each = next((name for name, arg in op.cli.args.items() if arg.each), None)
    show = progress_printer(args) if op.cli.progress else None
    # Cli(progress=...): the operation's progress callback, over one line of stderr (a hand-off
    # does not carry callbacks: the command then waits without one, as it always has)
    # (without ``progress_label`` the callback names what it reports on itself: ingest's files)
    label = str(kwargs.get(op.cli.progress_label, "")) if op.cli.progress_label else None
    extra = {op.cli.progress: show if label is None else functools.partial(show, label)} if show else {}
    opened = (engine_for(args, handed_off=op.remote is not None, not_handed_off=op.cli.not_handed_off,
                         command=op.cli.command) if op.cli.store
              else database_engine(args, op))  # Cli(store=False): the database and blob folder, here
    with opened as engine:
        call = getattr(engine, op.name)
        invoke = functools.partial(call, SYSTEM_ACTOR, **extra) if op.takes_actor else functools.partial(call, **extra)
        # an Arg(each=True) parameter: the operation once per word, in order; the first failure stops
        try:
            result = [invoke(**{**kwargs, each: word}) for word in kwargs[each]] if each else invoke(**kwargs)
        finally:
            if show:
                print(file=sys.stderr)  # past the progress line
    if target and not op.cli.output_text:
        emit(args, _write(op, kwargs, target, result), lambda r: f"wrote {r['written']}")
        return 0
    out = _out(op)
    value = op.cli.reply(kwargs, result) if op.cli.reply else result
    printed = out.dump_python(out.validate_python(value, from_attributes=True), mode="json")
    note = [op.cli.note(kwargs, result)] if op.cli.note else []
    if target:  # Cli(output_text=...): the file beside what is printed, written first
        note.append(_write_beside(op, target, result))
    emit(args, printed, op.cli.human or _rows)
    _say(args, "\n".join(line for line in note if line))
    return op.cli.exit(printed) if op.cli.exit else 0


def reserve_group(sub: argparse._SubParsersAction, group: CliGroup) -> None:
    """``group`` in the command list here, empty: its subcommands come when ``register`` is given the
    operations declared under it. Plugins' operations are registered after core's commands
    (core/cli/main.py); a built-in plugin's group keeps its place among them (``gdrive``)."""
    _group(sub, group)


def _group(sub: argparse._SubParsersAction, group: CliGroup) -> argparse._SubParsersAction:
    """The subcommands of ``group``, made on first use; a hand-written command of its name is refused."""
    parser = sub.choices.get(group.name)
    if parser is None:
        parser = sub.add_parser(group.name, help=group.help)
        parser.derived_commands = parser.add_subparsers(dest=f"{group.name}_command", required=True)
    elif not hasattr(parser, "derived_commands"):
        raise TypeError(f"CLI command {group.name!r} is already a command")
    return parser.derived_commands


class _Later(argparse.ArgumentParser):
    """A command made when it is parsed (or its help shown): the command list names it without
    importing the service that declares it. ``when_filled`` hooks run once it is made."""

    def fill(self) -> None:
        if self.pending is None:
            return
        pending, self.pending = self.pending, None
        self.make(*pending)
        for hook in self.when_filled:
            hook(self)

    def parse_known_args(self, args=None, namespace=None):
        self.fill()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self.fill()
        return super().format_help()


class _LaterGroup(_Later):
    """A group whose subcommands are made when it is parsed."""

    def make(self, sub: argparse._SubParsersAction, group: CliGroup, load: Callable[[], Iterable[Operation]]) -> None:
        register(sub, [op for op in load() if op.cli is not None and op.cli.group == group])


class _LaterCommand(_Later):
    """A command (no group) whose arguments are made when it is parsed: ``search``, ``doctor``."""

    arguments_later = True  # core/cli/main.py adds --json once they are made, after them

    def make(self, name: str, load: Callable[[], Iterable[Operation]]) -> None:
        found = [op for op in load() if op.cli is not None and op.cli.group is None and op.cli.name == name]
        if len(found) != 1:
            raise TypeError(f"CLI command {name!r}: {len(found)} operations declare it, not one")
        _check(found[0])
        _fill(self, found[0])


def register_later(sub: argparse._SubParsersAction, group: CliGroup,
                   load: Callable[[], Iterable[Operation]]) -> argparse.ArgumentParser:
    """``group`` in the command list now; its subcommands, ``load()``'s operations declared under
    it, when it is run. ``when_filled`` hooks run on the group's parser once they are made."""
    parser = sub.add_parser(group.name, help=group.help)
    parser.derived_commands = parser.add_subparsers(dest=f"{group.name}_command", required=True)
    parser.__class__ = _LaterGroup  # add_parser() makes the subparsers' own class
    parser.pending, parser.when_filled = (sub, group, load), []
    return parser


def register_command_later(sub: argparse._SubParsersAction, name: str, help: str,
                           load: Callable[[], Iterable[Operation]]) -> argparse.ArgumentParser:
    """The command ``name`` (``help``: its line in the command list) in the command list now; its
    arguments, from the one operation of ``load()`` declaring ``Cli(name)`` without a group, when it is run."""
    parser = sub.add_parser(name, help=help)
    parser.__class__ = _LaterCommand
    parser.pending, parser.when_filled = (name, load), []
    return parser


def _check(op: Operation) -> None:
    """What a command over ``op`` cannot be, refused when the parser is built."""
    taken = {p.name for p in _params(op)}
    unknown = set(op.cli.args) - taken
    if unknown:
        raise TypeError(f"{op.name}(): Cli(args=...) names no parameter {', '.join(sorted(unknown))}")
    if op.cli.output and op.hints.get("return") is not str and op.cli.output_text is None:
        raise TypeError(f"{op.name}(): Cli(output=...) writes a text result; this operation does not return str")
    if (op.cli.output_text or op.cli.output_metavar) and not op.cli.output:
        raise TypeError(f"{op.name}(): Cli(output_text/output_metavar=...) needs Cli(output=...)")
    implied = set(op.cli.implied)
    if implied - {p.name for p in op.wire_params()} or implied & taken:
        raise TypeError(f"{op.name}(): Cli(implied=...) names {', '.join(sorted(implied))}: parameters of the "
                        "operation the command does not take")
    if sum(arg.each for arg in op.cli.args.values()) > 1:
        raise TypeError(f"{op.name}(): only one parameter can be Arg(each=True)")
    if op.cli.progress and (op.cli.progress not in op.signature.parameters
                            or not is_callback(op.hints.get(op.cli.progress))):
        raise TypeError(f"{op.name}(): Cli(progress=...) names no callback parameter {op.cli.progress!r}")
    if op.cli.progress_label and op.cli.progress_label not in taken:
        raise TypeError(f"{op.name}(): Cli(progress_label=...) names no parameter {op.cli.progress_label!r}")
    if op.cli.not_handed_off and (op.remote is not None or not op.cli.store):
        raise TypeError(f"{op.name}(): Cli(not_handed_off=...) advises an operation the hand-off could run")


def _line(op: Operation) -> str:
    doc = inspect.getdoc(op.function) or ""
    return op.cli.help or doc.split("\n\n")[0].replace("\n", " ")


def _fill(parser: argparse.ArgumentParser, op: Operation) -> None:
    """The arguments, description and handler of the command over ``op``."""
    secrets = [arg for arg in op.cli.args.values() if arg.secret]
    parser.description = (inspect.getdoc(op.function) if op.cli.description is None else op.cli.description) or None
    parser.epilog = "\n".join(f"{arg.prompt or arg.secret}: typed at the terminal (not shown), or the first line of "
                              "standard input" + (f"\n  or of the file {arg.from_file} names" if arg.from_file else "")
                              for arg in secrets) or None
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    hints = typing.get_type_hints(op.function, include_extras=True)
    for param in _params(op):
        _argument(parser, op, param, hints.get(param.name, str), op.cli.args.get(param.name, PLAIN))
    if op.cli.output:
        parser.add_argument(*op.cli.output, dest=_OUTPUT, metavar=op.cli.output_metavar or _metavar(op.cli.output[-1]),
                            help=op.cli.output_help)
    parser.set_defaults(handler=functools.partial(run, op))


def register(sub: argparse._SubParsersAction, operations: Iterable[Operation]) -> list[str]:
    """A subcommand for each of ``operations`` that declares ``cli``; their names (``fields list``)."""
    added = []
    for op in operations:
        if op.cli is None:
            continue
        into = _group(sub, op.cli.group) if op.cli.group else sub
        if op.cli.name in into.choices:
            raise TypeError(f"CLI command {op.cli.command!r} ({op.name}) is already a command")
        _check(op)
        line = _line(op)
        # no help at all (not help=None, which lists the command on an empty line) when it has none
        _fill(into.add_parser(op.cli.name, **({"help": line} if line else {})), op)
        added.append(op.cli.command)
    return added
