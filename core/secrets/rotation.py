"""``python -m core secrets rotate``: every stored secret re-encrypted under a new key.

With the key file (``data/secret.key``): a new key is written first *beside* the old one (both
decrypt, so a rotation stopped half-way loses nothing and a running dashboard keeps reading),
every encrypted value is rewritten under the new key, then the old key is dropped from the file.
With ``RAGDESK_SECRET_KEY``: the new key comes from ``RAGDESK_NEW_SECRET_KEY``; afterwards the
admin puts it in ``RAGDESK_SECRET_KEY``.

Run it while nobody saves settings: a value saved under the old key during the rotation would
not decrypt after it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from sqlmodel import select

from core.config import RuntimeConfig
from core.storage.data_folder import check_data_folder, sqlite_path
from core.db.database import Database
from core.secrets.box import (
    ENV_KEY,
    KEY_FILE,
    SecretBox,
    SecretError,
    _fernet_key,
    new_key,
    read_key_file,
    write_key_file,
)
from core.secrets.columns import ENCRYPTED_COLUMNS, register_encrypted_column  # noqa: F401 (read from here too)
from core.settings.store import reencrypt_rows

NEW_ENV_KEY = "RAGDESK_NEW_SECRET_KEY"


@dataclass
class RotationReport:
    settings_versions: int
    other_values: int
    key_source: str  # "key file" | "environment"
    next_step: str = ""


def _reencrypt_columns(db: Database, old: SecretBox, new: SecretBox) -> int:
    from core.gdrive import models as drive_models  # noqa: F401 (registers its token columns)
    from core.sources import models as source_models  # noqa: F401 (registers a source's credentials)

    count = 0
    with db.write() as s:
        for model, column in ENCRYPTED_COLUMNS:
            for row in s.exec(select(model)):
                value = getattr(row, column)
                if isinstance(value, str) and value:
                    setattr(row, column, new.encrypt(old.decrypt(value)))
                    s.add(row)
                    count += 1
    return count


def rotate(config: RuntimeConfig, environ: Mapping[str, str] | None = None) -> RotationReport:
    env = os.environ if environ is None else environ
    check_data_folder(config.data_dir, sqlite_path(config.database_url), config.data_dir_link)  # never rotate into someone else's files
    db = Database(config.database_url)
    try:
        if env.get(ENV_KEY):
            if not env.get(NEW_ENV_KEY):
                raise SecretError(f"the key comes from {ENV_KEY}: put the new key in {NEW_ENV_KEY} and run again")
            old = SecretBox(_fernet_key(env[ENV_KEY]))
            new = SecretBox(_fernet_key(env[NEW_ENV_KEY]))
            rows, others = reencrypt_rows(db, old, new), _reencrypt_columns(db, old, new)
            return RotationReport(rows, others, "environment", f"now set {ENV_KEY} to the value of {NEW_ENV_KEY}")
        path = config.data_dir / KEY_FILE
        if not path.exists():
            raise SecretError(f"no key file at {path}: nothing was ever encrypted here")
        old_keys = read_key_file(path)
        old = SecretBox(old_keys[0], tuple(old_keys[1:]))
        fresh = new_key()
        write_key_file(path, [fresh, *old_keys])
        new = SecretBox(fresh)
        rows, others = reencrypt_rows(db, old, new), _reencrypt_columns(db, old, new)
        write_key_file(path, [fresh])
        return RotationReport(rows, others, "key file")
    finally:
        db.dispose()
