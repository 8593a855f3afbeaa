"""One mechanism for every secret: API keys, the Google Drive client secret and OAuth tokens,
web search keys.

Secrets are encrypted at rest with Fernet (AES-128-CBC + HMAC-SHA256) under a key that comes
from ``RAGDESK_SECRET_KEY`` (a Fernet key, or any passphrase, stretched with SHA-256) or from
``secret.key`` in the data folder, created 0600 on first start. Stored values carry a prefix
(``enc:v1:``) so a plain value saved by an older release is still read, and re-encrypted on
the next save. ``rotate()`` re-encrypts under a new key.

``scrub(text)`` removes every secret the box has seen (and anything shaped like a bearer
token) from a text before it reaches a log, a page or an error message.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import threading
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from core.errors import CoreError

PREFIX = "enc:v1:"
KEY_FILE = "secret.key"
ENV_KEY = "RAGDESK_SECRET_KEY"
MASK = "********"


class SecretError(CoreError):
    exit_code = 2


def _fernet_key(raw: str) -> bytes:
    """A Fernet key as given, or one derived from a passphrase."""
    candidate = raw.strip().encode()
    try:
        if len(base64.urlsafe_b64decode(candidate)) == 32:
            return candidate
    except (ValueError, TypeError):
        pass
    return base64.urlsafe_b64encode(hashlib.sha256(candidate).digest())


def write_private(path: Path, data: bytes) -> None:
    """Write a file readable by its owner only (created 0600, never briefly wider)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


class SecretBox:
    """Encrypts and decrypts stored secrets; remembers what it decrypted so ``scrub`` can hide it."""

    def __init__(self, key: bytes, old_keys: tuple[bytes, ...] = ()):
        self._fernet = MultiFernet([Fernet(key), *(Fernet(k) for k in old_keys)])
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    @classmethod
    def for_data_dir(cls, data_dir: Path, environ: dict | None = None) -> "SecretBox":
        env = os.environ if environ is None else environ
        if env.get(ENV_KEY):
            return cls(_fernet_key(env[ENV_KEY]))
        path = Path(data_dir) / KEY_FILE
        if not path.exists():
            write_private(path, Fernet.generate_key())
        key = path.read_bytes().strip()
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
        return cls(_fernet_key(key.decode()))

    def encrypt(self, value: str) -> str:
        if not value or value.startswith(PREFIX):
            return value
        self._remember(value)
        return PREFIX + self._fernet.encrypt(value.encode()).decode()

    def decrypt(self, stored: str) -> str:
        if not stored or not stored.startswith(PREFIX):
            if stored:
                self._remember(stored)
            return stored  # written before secrets were encrypted: read as is, encrypted on next save
        try:
            value = self._fernet.decrypt(stored[len(PREFIX):].encode()).decode()
        except InvalidToken:
            raise SecretError("a stored secret cannot be decrypted: RAGDESK_SECRET_KEY or data/secret.key "
                              "is not the key it was saved with") from None
        self._remember(value)
        return value

    def is_encrypted(self, stored: str) -> bool:
        return bool(stored) and stored.startswith(PREFIX)

    def _remember(self, value: str) -> None:
        if len(value) >= 4:
            with self._lock:
                self._seen.add(value)

    def scrub(self, text: str) -> str:
        return scrub(text, self._seen)


_TOKENISH = re.compile(r"(?i)(bearer\s+|api[_-]?key[=:]\s*|token[=:]\s*|key=)([A-Za-z0-9._~+/\-]{8,})")


def scrub(text: str, secrets: set[str] | list[str] = ()) -> str:
    """``text`` with the given secrets and bearer/key-looking values replaced by a mask."""
    out = str(text)
    for s in sorted(secrets, key=len, reverse=True):
        if s and s in out:
            out = out.replace(s, MASK)
    return _TOKENISH.sub(lambda m: m.group(1) + MASK, out)


def new_key() -> bytes:
    return Fernet.generate_key()
