"""What the derived ``gdrive`` group needed of core/cli/derived.py beyond the ``sources`` group's
secrets (tests/cli/test_cli_derived.py): a secret typed once at a terminal under its own prompt,
refused on the command line in the words the operation gives (``refusal``) and checked once read
(``check``); a plugin's group kept at its place in the command list (``reserve_group``)."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from core.cli import derived
from core.errors import InvalidInput
from core.services.declare import Arg, Cli, CliGroup, operation, operations_of
from core.types import Actor

_VAULT = CliGroup("vault", "keys kept in a vault")


def _not_blank(key: str) -> None:
    if not key.strip():
        raise InvalidInput("a blank api key")


_KEY = Arg(secret="api key", prompt="Vault API key", confirm=False, from_file="--key-file", metavar="PATH",
           from_file_help="read the key from this file (- for standard input)", refuse="--key",
           refusal="a key typed on the command line is seen by everyone: pipe it in", check=_not_blank)


class _Vault:
    def __init__(self, rt):
        self._rt = rt

    @operation(access="admin", admin_does="open vaults",
               cli=Cli("open", group=_VAULT, store=False, args={"key": _KEY}))
    def open_vault(self, actor: Actor, key: str) -> dict:
        """Open the vault with its key."""
        return {"length": len(key)}  # never the key itself

    @operation(access="admin", admin_does="seal vaults",
               cli=Cli("seal", group=_VAULT, store=False, args={"key": Arg(secret="seal key", refuse="--seal-key")}))
    def seal_vault(self, actor: Actor, key: str) -> dict:
        return {"length": len(key)}


@pytest.fixture
def vault(data_dir, monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL"):
        monkeypatch.delenv(var, raising=False)
    parser = argparse.ArgumentParser(prog="t")
    sub = parser.add_subparsers(dest="command")
    derived.register(sub, operations_of("svc", _Vault))
    ops = {op.cli.name: op for op in operations_of("svc", _Vault)}

    def run(*words: str, stdin: io.StringIO | str = "") -> None:
        args = parser.parse_args(list(words))
        args.data_dir, args.json, args.wait = str(data_dir), True, 0.0
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin) if isinstance(stdin, str) else stdin)
        assert derived.run(ops[words[1]], args) == 0

    return parser, sub, run


def test_a_secret_is_refused_in_the_operations_words_and_checked_once_read(vault, capsys):
    _, sub, run = vault
    run("vault", "open", "--key-file", "-", stdin="k-45\n")
    assert json.loads(capsys.readouterr().out) == {"length": 4}
    with pytest.raises(InvalidInput, match="^a key typed on the command line is seen by everyone: pipe it in$"):
        run("vault", "open", "--key", "k-9", stdin="k-678\n")
    with pytest.raises(InvalidInput, match="^the seal key is never taken on the command line .*: give it on "
                                           "standard input$"):
        run("vault", "seal", "--seal-key", "k-9", stdin="k-678\n")
    with pytest.raises(InvalidInput, match="^a blank api key$"):  # Arg(check=...) on the secret read
        run("vault", "open", stdin="   \n")
    assert "k-" not in capsys.readouterr().out
    helped = sub.choices["vault"].derived_commands.choices["open"].format_help()
    assert "--key-file PATH" in helped and "--key " not in helped and "--key K" not in helped
    assert "Vault API key: typed at the terminal (not shown)" in helped


def test_a_secret_checked_by_its_server_is_typed_once_at_a_terminal(vault, monkeypatch, capsys):
    """``confirm=False``: the terminal asks once, in the prompt's words (a new password asks twice)."""
    _, _, run = vault
    asked = []

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    def typed(prompt: str) -> str:
        asked.append(prompt)
        return "k-typed"

    monkeypatch.setattr("getpass.getpass", typed)  # the terminal, which a test cannot type into
    run("vault", "open", stdin=Terminal(""))
    assert asked == ["Vault API key: "] and json.loads(capsys.readouterr().out) == {"length": 7}


def test_a_plugins_group_reserved_among_cores_commands_keeps_its_place():
    parser = argparse.ArgumentParser(prog="t")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("first")
    derived.reserve_group(sub, _VAULT)
    sub.add_parser("last")
    derived.register(sub, operations_of("svc", _Vault))  # later, as core/cli/main.py adds plugins' commands
    assert list(sub.choices) == ["first", "vault", "last"]
    assert list(sub.choices["vault"].derived_commands.choices) == ["open", "seal"]
    assert parser.parse_args(["vault", "seal"]).vault_command == "seal"
    taken = argparse.ArgumentParser(prog="t").add_subparsers(dest="command")
    taken.add_parser("vault")  # a hand-written command of that name: never shadowed
    with pytest.raises(TypeError, match="'vault' is already a command"):
        derived.reserve_group(taken, _VAULT)
