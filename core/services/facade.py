"""The Engine's public methods, derived from the services' declared operations.

``install_operations(Engine, OPERATIONS)`` (the table ``collect`` makes in core/operations.py) gives
``Engine`` one method per declared operation: it applies the operation's access rule (an admin
operation refuses a plain actor here, before the service runs) and calls the owning service. The method keeps the service method's name, signature and
docstring, so ``inspect`` and ``help()`` show the real interface."""

from __future__ import annotations

import functools
from collections.abc import Callable

from core.accounts.access import require_admin
from core.jobs import kinds as job_kinds
from core.services.declare import JobKind, Operation, job_kinds_of, operations_of


def method_of(op: Operation) -> Callable:
    """The engine method of ``op``: its access rule, then the owning service's method."""
    if op.access == "admin":
        def method(self, *args, **kwargs):
            actor = op.signature.bind(None, *args, **kwargs).arguments["actor"]
            require_admin(actor, op.admin_does)
            return getattr(getattr(self.services, op.service), op.name)(*args, **kwargs)
    else:
        def method(self, *args, **kwargs):
            return getattr(getattr(self.services, op.service), op.name)(*args, **kwargs)
    functools.update_wrapper(method, op.function)
    method.operation = op
    return method


def collect(services: dict[str, type]) -> dict[str, Operation]:
    """Every operation ``services`` (attribute name -> service class) declare, by name."""
    found: dict[str, Operation] = {}
    for attr, service_cls in services.items():
        for op in operations_of(attr, service_cls):
            if op.name in found:
                raise TypeError(f"operation {op.name!r} is declared twice")
            found[op.name] = op
    return found


def install_operations(cls: type, operations: dict[str, Operation]) -> dict[str, Operation]:
    """Put these operations (from ``collect``) on ``cls``."""
    for op in operations.values():
        if op.name in vars(cls):
            raise TypeError(f"operation {op.name!r} is declared twice")
        setattr(cls, op.name, method_of(op))
    return operations


def install(cls: type, services: dict[str, type]) -> dict[str, Operation]:
    """Put every operation of ``services`` (attribute name -> service class) on ``cls``."""
    return install_operations(cls, collect(services))


def _job_runner(declared: JobKind) -> Callable:
    def run(engine, jobs, on_outcome=None):
        return getattr(getattr(engine.services, declared.service), declared.method)(jobs, on_outcome)

    run.__qualname__ = f"{declared.service}.{declared.method}"
    return run


def register_job_kinds(services: dict[str, type]) -> dict[str, job_kinds.Kind]:
    """Register the job kinds ``services`` (attribute name -> service class) declare with the
    queue (core/jobs/kinds.py): its workers run each on the engine's own service."""
    registered = {}
    for attr, service_cls in services.items():
        for declared in job_kinds_of(attr, service_cls):
            if declared.name in registered:
                raise TypeError(f"job kind {declared.name!r} is declared twice")
            registered[declared.name] = job_kinds.register(
                job_kinds.Kind(declared.name, _job_runner(declared), declared.decode))
    return registered
