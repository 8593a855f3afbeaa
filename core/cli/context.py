"""What every CLI command module shares: printing a result, opening the engine (or its hand-off),
the engine without the hand-off, the engine without the store.

A leaf of ``core/cli``: the command modules import it, never ``main`` or each other for these, and
``main`` imports the command modules (through ``commands.register``), never the reverse.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from core.errors import StoreBusy
from core.names import printable

Handler = Callable[[argparse.Namespace], Any]


def emit(args: argparse.Namespace, value: Any, human: Callable[[Any], str] | None = None) -> None:
    # printable(): names and texts come from users and documents; a terminal must never receive
    # their escape sequences or bidi controls raw (JSON stays valid: \uXXXX is JSON's own escape)
    if args.json or human is None:
        print(printable(json.dumps(value, ensure_ascii=False, indent=2, default=str)))
    else:
        print(printable(human(value)))


@contextmanager
def engine_for(args: argparse.Namespace, *, handed_off: bool = True, not_handed_off: str = "",
               command: str = "") -> Iterator["Engine"]:  # noqa: F821
    """The engine for this data folder — or, when the dashboard holds the embedded store, a
    hand-off that runs the command inside the dashboard's process. A command that is not handed
    off (``handed_off=False``) is refused there instead; ``not_handed_off`` is that command's own
    advice, added to either refusal."""
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.handoff.channel import RemoteEngine, find_socket
    from core.handoff.holder import holder_of

    config = RuntimeConfig.from_env(args.data_dir)
    try:
        engine = Engine(config)
    except StoreBusy as exc:
        if find_socket(config.data_dir) is not None:
            remote = RemoteEngine(config.data_dir)
            holder = holder_of(remote)
            if not handed_off:
                raise StoreBusy(f"{holder} holds the store and '{command or args.command}' is not "
                                f"handed off: {not_handed_off or NOT_HANDED_OFF}") from None
            print(f"note: {holder} holds the store; this command runs there (hand-off)", file=sys.stderr)
            yield remote
            return
        if args.wait <= 0:
            raise store_busy(exc, not_handed_off) from None
        try:
            engine = Engine(config, store_wait_seconds=args.wait)
        except StoreBusy as again:
            raise store_busy(again, not_handed_off) from None
    try:
        yield engine
    finally:
        engine.close()


def progress_printer(args: argparse.Namespace):
    """``show(name, done, total, message)``, one line of stderr rewritten in place; None when stderr
    is no terminal or --json is given (nothing but the result is printed then)."""
    if args.json or not sys.stderr.isatty():
        return None
    last = {}

    def show(name: str, done: int, total: int, message: str) -> None:
        key = (name, message)
        if last.get(name) == (key, done):
            return
        last[name] = (key, done)
        print(f"\r{name}: {message} {done}/{total}".ljust(80), end="", file=sys.stderr, flush=True)

    return show


NOT_HANDED_OFF = "use the dashboard's pages, or stop that process and run it again"


@contextmanager
def database_engine(args: argparse.Namespace, operation) -> Iterator["DatabaseEngine"]:  # noqa: F821
    """An engine over the database and blob folder for one ``Cli(store=False)`` operation: no vector
    store opened, so no hand-off and no wait for it (core/engine_database.py)."""
    from core.config import RuntimeConfig
    from core.engine_database import DatabaseEngine

    with DatabaseEngine(RuntimeConfig.from_env(args.data_dir), [operation]) as engine:
        yield engine


def store_busy(exc: StoreBusy, advice: str = "") -> StoreBusy:
    return StoreBusy(
        f"{exc.message.rstrip('.')}. The embedded vector store admits one process at a time and that process does "
        "not accept hand-offs: wait for it to finish (--wait SECONDS), or point both at a Qdrant server "
        "with QDRANT_URL." + (f" Note: {advice}." if advice else "")
    )


@contextmanager
def local_engine(args: argparse.Namespace, advice: str = "", command: str = "") -> Iterator["Engine"]:  # noqa: F821
    """The engine in this process. These commands are not part of the dashboard hand-off, so
    while the dashboard holds the store they stop at once with a clear message (plus ``advice``,
    a command's own reason and remedy)."""
    with engine_for(args, handed_off=False, not_handed_off=advice, command=command) as engine:
        yield engine
