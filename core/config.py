"""Where the engine keeps its data and which servers it talks to (from the environment).

These are deployment facts, not settings an admin edits in the UI:
- ``RAGDESK_DATA_DIR``: the data folder (default ``./data``): SQLite database, embedded
  vector store, uploaded files.
- ``DATABASE_URL``: a PostgreSQL URL (``postgresql+psycopg://user:pass@host/db``) instead of SQLite.
- ``QDRANT_URL`` / ``QDRANT_API_KEY``: a Qdrant server or cluster instead of the embedded engine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RuntimeConfig:
    data_dir: Path
    database_url: str
    qdrant_url: str | None = None
    qdrant_api_key: str | None = None
    data_dir_link: Path | None = None  # the path given, when it is a symbolic link to data_dir

    @classmethod
    def from_env(cls, data_dir: str | Path | None = None) -> "RuntimeConfig":
        given = Path(data_dir or os.environ.get("RAGDESK_DATA_DIR") or "data").expanduser().absolute()
        root = given.resolve()
        url = os.environ.get("DATABASE_URL") or f"sqlite:///{root / 'ragdesk.db'}"
        if url.startswith("postgres://"):
            url = "postgresql+psycopg://" + url[len("postgres://"):]
        elif url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url[len("postgresql://"):]
        return cls(
            data_dir=root,
            database_url=url,
            qdrant_url=os.environ.get("QDRANT_URL") or None,
            qdrant_api_key=os.environ.get("QDRANT_API_KEY") or None,
            data_dir_link=given if given.is_symlink() else None,
        )

    @property
    def blobs_dir(self) -> Path:
        return self.data_dir / "files"

    @property
    def parsed_dir(self) -> Path:
        return self.data_dir / "parsed"
