"""Every surface is derived from one declaration (issue 34): this walks EVERY declared operation
(core's and the built-in plugins', Google Drive's among them) and checks it reaches each surface
its ``@operation`` declares — the hand-off (a RemoteEngine method), HTTP (a route of the served
app, at the declared method and path) and the CLI (a subcommand whose ``--help`` parses) — and
that no surface serves an operation that was not declared for it."""

from __future__ import annotations

import contextlib
import io

import pytest

from core.api.app import create_app
from core.cli.main import build_parser
from core.engine import OPERATIONS
from core.handoff.channel import RemoteEngine
from core.handoff.commands import commands


class _NoBackend:
    """create_app only reads routes here; nothing is served."""


def _cli_words(op) -> list[str]:
    return [op.cli.group.name, op.cli.name] if op.cli.group else [op.cli.name]


def test_the_operations_table_holds_core_and_built_in_plugin_operations():
    assert {"create_kb", "search", "ask", "sync_source", "gdrive_import", "gdrive_status", "add_curated"} <= set(OPERATIONS)


def test_every_operation_declared_for_the_hand_off_is_a_remote_command_and_no_other():
    declared = {name for name, op in OPERATIONS.items() if op.remote is not None}
    assert set(commands()) == declared
    remote = RemoteEngine.__new__(RemoteEngine)  # no socket needed to see its methods
    for name in declared:
        assert callable(getattr(remote, name)), name
    with pytest.raises(AttributeError):
        remote.submit_ingest  # not declared for the hand-off: not offered


def test_every_declared_route_is_served_and_every_served_operation_route_is_declared():
    app = create_app(_NoBackend())
    served = {(method, route.path) for route in app.routes for method in getattr(route, "methods", ()) or ()}
    declared = {(http.method, http.path) for op in OPERATIONS.values() for http in op.routes}
    missing = {d for d in declared if d not in served}
    assert not missing, missing
    docs = {"/docs", "/openapi.json", "/api/docs-assets/{name}"}  # the server's own pages, not operations
    undeclared = {(m, p) for m, p in served if p not in docs} - declared
    assert not undeclared, undeclared
    assert len(declared) >= 40  # REST under /api/v1 and the OpenAI-compatible /v1


@pytest.mark.parametrize("name", sorted(n for n, op in OPERATIONS.items() if op.cli is not None))
def test_every_operation_declared_for_the_cli_is_a_command_with_its_help(name):
    op = OPERATIONS[name]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as ended:
        build_parser().parse_args([*_cli_words(op), "--help"])
    assert ended.value.code == 0
    assert f"python -m core {' '.join(_cli_words(op))}" in out.getvalue()
