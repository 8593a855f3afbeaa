"""One error registry (issue 34): every CoreError class, wherever it is defined, registers itself by
name with its exit code, HTTP status and stable code (core/errors.py), and the CLI, the hand-off,
the HTTP API and the job queue all read that one registry. The figures are today's: a test pins
them, and the README's list of exit codes says the same. A plugin's error classes register the same
way but are outside the pin (their codes are the plugin's own: tests/plugins/test_toy_shelves.py)."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.api.errors import error_code, http_status
from core.errors import CoreError, error_class, error_classes, rebuild_error
from core.handoff.commands import error_from_payload, error_payload

REPO = Path(__file__).resolve().parents[2]

# name: (exit code, HTTP status, code) — as they were before the registry (the CLI's exit codes, the
# API's STATUS table and error_code); a new class is added here on purpose.
TODAY = {
    "AlreadyExists": (4, 409, "already_exists"),
    "ApiTokenLocked": (13, 429, "not_authenticated"),
    "BlockedAddress": (6, 422, "blocked_address"),
    "Cancelled": (11, 409, "cancelled"),
    "ChangesTokenExpired": (22, 502, "changes_token_expired"),
    "CoreError": (1, 500, "core_error"),
    "DataFolderUnsafe": (9, 500, "data_folder_unsafe"),
    "DiskFull": (9, 507, "disk_full"),
    "DriveError": (22, 502, "drive_error"),
    "DriveSetupIncomplete": (2, 502, "drive_setup_incomplete"),
    "E5SelfCheckFailed": (7, 502, "e5_self_check_failed"),
    "E5WeightsUnreadable": (7, 502, "e5_weights_unreadable"),
    "EmbeddingAuthError": (7, 502, "embedding_auth_error"),
    "EmbeddingError": (7, 502, "embedding_error"),
    "EmbeddingModelUnavailable": (7, 502, "embedding_model_unavailable"),
    "EmbeddingRejected": (7, 502, "embedding_rejected"),
    "FetchError": (6, 422, "fetch_error"),
    "FileTooLarge": (6, 413, "file_too_large"),
    "HttpStatusError": (6, 422, "http_status_error"),
    "InvalidInput": (2, 422, "invalid_input"),
    "InvalidSettings": (2, 422, "invalid_settings"),
    "ItemNotImportable": (22, 502, "item_not_importable"),
    "LLMError": (10, 502, "l_l_m_error"),  # made from the name as every code is; kept, clients may match it
    "LeaseLost": (20, 409, "lease_lost"),
    "NotAuthenticated": (13, 401, "not_authenticated"),
    "NotConnected": (22, 502, "not_connected"),
    "NotFound": (3, 404, "not_found"),
    "ParseError": (6, 422, "parse_error"),
    "PermissionDenied": (5, 403, "permission_denied"),
    "ReconnectNeeded": (23, 502, "reconnect_needed"),
    "ReferenceUnavailable": (7, 502, "reference_unavailable"),
    "ReindexNeeded": (8, 409, "reindex_needed"),
    "SecretError": (2, 500, "secret_error"),
    "ServerBusy": (1, 503, "server_busy"),
    "SignInLocked": (5, 429, "sign_in_locked"),
    "SourceUnavailable": (21, 502, "source_unavailable"),
    "DingTalkError": (21, 502, "ding_talk_error"),  # a source that cannot be read now, as its base
    "StoreBusy": (9, 503, "store_busy"),
    "StoreError": (9, 500, "store_error"),
    "StoreUnavailable": (9, 503, "store_unavailable"),
    "SyncBusy": (20, 409, "sync_busy"),
    "UnsupportedFormat": (6, 415, "unsupported_format"),
    "WebSearchError": (12, 502, "web_search_error"),
}


def _base_names(node: ast.ClassDef) -> set[str]:
    return {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases}


def import_every_error_module() -> dict[str, type[CoreError]]:
    """Import each module of core/ that defines a class on an error class known so far, until no
    new one turns up: every CoreError class of the source tree is then registered (found from the
    source, so a new error module is found without a list to keep)."""
    classes = {}
    for path in sorted((REPO / "core").rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        classes[module] = [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.ClassDef)]
    done: set[str] = set()
    while True:
        known = set(error_classes())
        todo = [m for m, defs in classes.items() if m not in done and any(_base_names(d) & known for d in defs)]
        if not todo:
            return error_classes(core_only=True)  # a plugin loaded in this process is not pinned here
        for module in todo:
            importlib.import_module(module)
            done.add(module)


def test_every_error_class_keeps_todays_exit_code_status_and_code():
    found = import_every_error_module()
    assert set(found) == set(TODAY), "a new or renamed CoreError class: give it a deliberate row in TODAY"
    for name, cls in found.items():
        exc = cls.__new__(cls)
        assert (cls.exit_code, http_status(exc), error_code(exc)) == TODAY[name], name
        assert issubclass(cls, CoreError) and error_class(name) is cls


def test_a_second_error_class_with_a_taken_name_is_refused_where_it_is_defined():
    import_every_error_module()
    with pytest.raises(TypeError, match="two CoreError classes are named SyncBusy"):
        type("SyncBusy", (CoreError,), {"__module__": "elsewhere.plugin"})
    from core.sources.base import SyncBusy

    assert error_class("SyncBusy") is SyncBusy  # the first keeps its name


def test_an_unknown_name_is_a_plain_core_error():
    exc = rebuild_error("NoSuchError", "something failed", module="core.no_such_module")
    assert type(exc) is CoreError and exc.message == "something failed" and exc.exit_code == 1
    back = error_from_payload({"kind": "NoSuchError", "module": "os", "message": "m"})  # never imports outside core
    assert type(back) is CoreError and "os.path" not in repr(back)


def test_a_reply_names_its_class_so_a_process_that_never_imported_it_finds_it():
    """A fresh CLI process has loaded none of the Drive or source modules; the payload's module is
    what lets it rebuild the dashboard's ReconnectNeeded (exit 23) instead of a plain CoreError."""
    from core.gdrive.errors import ReconnectNeeded

    payload = error_payload(ReconnectNeeded("connect Google Drive again"))
    assert payload == {"kind": "ReconnectNeeded", "module": "core.gdrive.errors", "message": "connect Google Drive again"}
    assert type(error_from_payload(payload)) is ReconnectNeeded
    probe = ("import sys; from core.errors import rebuild_error; assert 'core.gdrive.errors' not in sys.modules; "
             "print(type(rebuild_error('ReconnectNeeded', 'm')).__name__, "
             "type(rebuild_error('ReconnectNeeded', 'm', module='core.gdrive.errors')).__name__, "
             "rebuild_error('ReconnectNeeded', 'm', module='core.gdrive.errors').exit_code)")
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["CoreError", "ReconnectNeeded", "23"]


def test_the_readme_lists_every_exit_code():
    import_every_error_module()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("Exit codes: 0 success"):]
    paragraph = paragraph[:paragraph.index("\n\n")]
    listed = {int(n) for n in re.findall(r"(?:^|[,:] )(\d+) ", paragraph.replace("\n", " "))}
    assert listed == {0} | {cls.exit_code for cls in error_classes(core_only=True).values()}, paragraph
