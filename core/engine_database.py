"""``DatabaseEngine``: operations that need the database and the blob folder only, never the
vector store (``Cli(store=False)``: the job queue, accounts and API tokens), run by the CLI in its own
process. It opens no store, so it runs while another process holds the embedded one — the
dashboard, the API server, or a ``worker`` that takes no hand-offs: SQLite (WAL, BEGIN IMMEDIATE)
and PostgreSQL take writers from several processes. Its methods are the declared operations
themselves, with their access rules (core/services/facade.py); its Runtime's secret box masks
known secrets in this process's log records, as the full engine's does (core/secrets/box.py)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from core.services.declare import Operation
from core.services.facade import method_of
from core.services.runtime import Runtime


class DatabaseEngine:
    def __init__(self, config, operations: Iterable[Operation]) -> None:
        ops = {op.name: op for op in operations}
        needs_store = [name for name, op in ops.items() if op.cli is None or op.cli.store or op.owner is None]
        if needs_store:
            raise TypeError(f"not declared Cli(store=False): {', '.join(sorted(needs_store))}")
        self.config = config
        self.runtime = Runtime(config, with_store=False)
        self.services = SimpleNamespace(**{op.service: op.owner(self.runtime) for op in ops.values()})
        self._operations = ops

    def __getattr__(self, name: str) -> Any:
        op = self.__dict__.get("_operations", {}).get(name)
        if op is None:
            raise AttributeError(f"{name!r} is not an operation of this engine (it needs the vector store)")
        return functools.partial(method_of(op), self)

    def close(self) -> None:
        self.runtime.close()

    def __enter__(self) -> "DatabaseEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
