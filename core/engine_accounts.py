"""``AccountsEngine``: the accounts operations (users, sessions, API tokens) over the database
alone, without the vector store. The CLI's ``users create`` and ``tokens`` commands use it, so they
run even while the dashboard holds the embedded store, without the hand-off: SQLite (WAL, BEGIN
IMMEDIATE) and PostgreSQL take writers from several processes, and every check reads the
database. Its methods are the same declared operations as the Engine's (core/services/accounts.py)."""

from __future__ import annotations

import weakref
from pathlib import Path
from types import SimpleNamespace

from core.services.accounts import AccountService
from core.services.facade import install


class AccountsEngine:
    def __init__(self, config) -> None:
        from core.db.database import Database
        from core.secrets.box import install_log_scrubbing
        from core.storage.data_folder import PrivateDataFolder, sqlite_path

        self.config = config
        self._data_folder = PrivateDataFolder(config.data_dir, sqlite_path(config.database_url), config.data_dir_link)
        weakref.finalize(self, self._data_folder.close)
        install_log_scrubbing()  # a token printed by mistake into a log line is masked here too
        self._db = Database(config.database_url)
        self.services = SimpleNamespace(accounts=AccountService(self._db))

    @classmethod
    def open(cls, data_dir: str | Path | None = None) -> "AccountsEngine":
        from core.config import RuntimeConfig

        return cls(RuntimeConfig.from_env(data_dir))

    def close(self) -> None:
        self._db.dispose()
        self._data_folder.close()

    def __enter__(self) -> "AccountsEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


install(AccountsEngine, {"accounts": AccountService})
