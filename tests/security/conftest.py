"""Shared by the security tests: a record of every socket connection the process attempts.

It uses Python's audit hooks (``socket.connect`` events), so a test can assert that a refused
address was never even tried — the guard must refuse *before* connecting. While a test records,
a connection to anything but loopback is also stopped in the hook, before the system call: a
guard that fails lets the test fail without a packet leaving the machine."""

from __future__ import annotations

import ipaddress
import sys
import threading

import pytest

_recording: list[list] = []
_lock = threading.Lock()
_installed = False


def _is_loopback(host: object) -> bool:
    try:
        return ipaddress.ip_address(str(host).split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _hook(event: str, args: tuple) -> None:
    if event == "socket.connect" and _recording:
        destination = args[1]
        with _lock:
            for log in _recording:
                log.append(destination)
        if isinstance(destination, tuple) and not _is_loopback(destination[0]):
            raise ConnectionRefusedError(f"test safety: no connection beyond loopback ({destination[0]})")


@pytest.fixture
def connections():
    """Destinations (address tuples or paths) of every connect() made while the test runs."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)  # hooks cannot be removed: this one records only while a test asks
        _installed = True
    log: list = []
    _recording.append(log)
    yield log
    _recording.remove(log)


def hosts(log: list) -> set[str]:
    return {str(a[0]) if isinstance(a, tuple) else str(a) for a in log}
