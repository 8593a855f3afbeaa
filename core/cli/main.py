"""``python -m core``: everything the dashboard does, without a browser.

The CLI acts as the local administrator: whoever can read the data folder owns it.
Errors print one clear line to stderr and exit with the error's code (see core/errors.py).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from core.cli.context import Handler, emit  # noqa: F401 (read from here too)
from core.errors import CoreError
from core.names import printable

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

COMMANDS: dict[str, Handler] = {}


def build_parser() -> argparse.ArgumentParser:
    from core.cli import commands, derived  # after the offline defaults above are set
    from core.services.plugin import plugin_operations

    p = argparse.ArgumentParser(prog="python -m core", description="ragdesk engine command line")
    p.add_argument("--data-dir", help="data folder (default: $RAGDESK_DATA_DIR or ./data)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--wait", type=float, default=5.0, metavar="SECONDS",
                   help="how long to wait for the embedded store if another process holds it (default 5)")
    p.add_argument("-v", "--verbose", action="store_true")
    sub = p.add_subparsers(dest="command", required=True)
    commands.register(sub)
    derived.register(sub, plugin_operations())  # plugins' operations that declare a CLI command
    _accept_json_everywhere(p)
    return p


def _accept_json_everywhere(parser: argparse.ArgumentParser) -> None:
    """``--json`` before or after the subcommand (``kb list --json``). SUPPRESS as the default, so a
    subcommand that was not given it keeps what the top level parsed."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                if hasattr(child, "when_filled"):  # a group or command made when run (core/cli/derived.py)
                    child.when_filled.append(_accept_json_everywhere)
                    if getattr(child, "arguments_later", False):  # --json after its own options, as elsewhere
                        child.when_filled.append(_json_option)
                        continue
                _json_option(child)
                _accept_json_everywhere(child)


def _json_option(parser: argparse.ArgumentParser) -> None:
    if "--json" not in parser._option_string_actions:
        parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        code = args.handler(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return int(code or 0)
    except BrokenPipeError:
        # The reader went away (`| head`): nothing more to say. Point stdout at /dev/null so the
        # interpreter's own flush at exit does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a command killed by a closed pipe
    except CoreError as exc:
        if args.json:
            print(printable(json.dumps({"error": exc.message, "kind": type(exc).__name__}, ensure_ascii=False)), file=sys.stderr)
        else:
            print(f"error: {printable(exc.message)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
