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
import logging
import os
import re
import threading
import traceback
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from core.storage.data_folder import check_private
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
    """Encrypts and decrypts stored secrets; remembers what it decrypted so ``scrub`` can hide it.

    The key file may hold several keys, one per line: the first encrypts, all decrypt (so a
    rotation interrupted half-way loses nothing). When a value does not decrypt, a box whose key
    came from the file reads the file again once (another process may have rotated it)."""

    def __init__(self, key: bytes, old_keys: tuple[bytes, ...] = (), key_file: Path | None = None):
        self._set_keys(key, old_keys)
        self._key_file = key_file
        self._seen: set[str] = set()
        self._lock = threading.Lock()
        _register(self)

    def _set_keys(self, key: bytes, old_keys: tuple[bytes, ...]) -> None:
        self._keys = (key, *old_keys)
        self._fernet = MultiFernet([Fernet(k) for k in self._keys])

    @classmethod
    def for_data_dir(cls, data_dir: Path, environ: dict | None = None) -> "SecretBox":
        env = os.environ if environ is None else environ
        if env.get(ENV_KEY):
            return cls(_fernet_key(env[ENV_KEY]))
        path = Path(data_dir) / KEY_FILE
        if not path.exists():
            write_private(path, Fernet.generate_key())
        key, *old = read_key_file(path)
        return cls(key, tuple(old), key_file=path)

    @property
    def from_file(self) -> Path | None:
        return self._key_file

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
        token = stored[len(PREFIX):].encode()
        try:
            value = self._fernet.decrypt(token).decode()
        except InvalidToken:
            if self._key_file is None or not self._reload():
                raise SecretError("a stored secret cannot be decrypted: RAGDESK_SECRET_KEY or data/secret.key "
                                  "is not the key it was saved with") from None
            return self.decrypt(stored)
        self._remember(value)
        return value

    def _reload(self) -> bool:
        """Read the key file again; True when it holds keys this box did not have."""
        try:
            keys = read_key_file(self._key_file)
        except OSError:
            return False
        if tuple(keys) == self._keys:
            return False
        self._set_keys(keys[0], tuple(keys[1:]))
        return True

    def is_encrypted(self, stored: str) -> bool:
        return bool(stored) and stored.startswith(PREFIX)

    def remember(self, value: str) -> None:
        """Hide ``value`` from every scrubbed text from now on (e.g. a secret set by the environment)."""
        self._remember(value)

    def _remember(self, value: str) -> None:
        if len(value) >= 4:
            with self._lock:
                self._seen.add(value)

    def scrub(self, text: str) -> str:
        return scrub(text, self._seen)

    def known(self) -> set[str]:
        with self._lock:
            return set(self._seen)


def read_key_file(path: Path) -> list[bytes]:
    """The keys in a key file, current first; tightens the file to 0600 if it was wider. A key
    file of another user's, or one others can write, is refused (DataFolderUnsafe): whoever
    controls it can decrypt what is saved with it."""
    info = check_private(path, "the secret key file")
    lines = [ln.strip() for ln in path.read_text().splitlines() if ln.strip()]
    if not lines:
        raise SecretError(f"{path} holds no key")
    if info.st_mode & 0o077:
        os.chmod(path, 0o600)
    return [_fernet_key(ln) for ln in lines]


def write_key_file(path: Path, keys: list[bytes]) -> None:
    write_private(path, b"\n".join(keys) + b"\n")


# Every live box, so log records are scrubbed of every secret any engine in this process knows.
_BOXES: "weakref.WeakSet[SecretBox]" = weakref.WeakSet()
_factory_installed = False
_install_lock = threading.Lock()


def _register(box: SecretBox) -> None:
    _BOXES.add(box)
    install_log_scrubbing()


def known_secrets() -> set[str]:
    out: set[str] = set()
    for box in list(_BOXES):
        out |= box.known()
    return out


def install_log_scrubbing() -> None:
    """Scrub every log record of this process as it is made: message, arguments and traceback."""
    global _factory_installed
    with _install_lock:
        if _factory_installed:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args, **kwargs) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            secrets = known_secrets()
            try:
                text = record.getMessage()
            except (TypeError, ValueError):
                return record  # a malformed record: logging reports it itself
            clean = scrub(text, secrets)
            if record.args:
                _scrub_arguments(record, clean, secrets)
            elif clean != text:
                record.msg = clean
            if record.exc_info and not record.exc_text:
                record.exc_text = scrub("".join(traceback.format_exception(*record.exc_info)).rstrip(), secrets)
            return record

        logging.setLogRecordFactory(factory)
        _factory_installed = True


def _scrub_arguments(record: logging.LogRecord, clean: str, secrets: set[str]) -> None:
    """Scrub each argument and keep their shape: formatters read them (uvicorn's access log
    unpacks five of them; an emptied tuple made every access line a "--- Logging error ---" whose
    report printed the raw arguments, a token in a URL among them). An argument that is no string
    but still shows a secret once formatted is flattened into the message instead."""
    args = record.args
    if isinstance(args, Mapping):
        kept: Any = {k: scrub(v, secrets) if isinstance(v, str) else v for k, v in args.items()}
    else:
        kept = tuple(scrub(a, secrets) if isinstance(a, str) else a for a in args)
    try:
        shown = str(record.msg) % kept
    except (TypeError, ValueError, KeyError):
        shown = None
    if shown is not None and shown == clean:
        record.args = kept
    else:
        record.msg, record.args = clean, ()


_TOKENISH = re.compile(r"(?i)(bearer\s+|api[_-]?key[=:]\s*|token[=:]\s*|key=)([A-Za-z0-9._~+/\-]{8,})")
# ragdesk's own API tokens (core/accounts/api_tokens.py), wherever they appear: no box has seen them
# (only their hash is stored), so they are recognised by shape; the recognisable prefix stays.
_API_TOKEN = re.compile(r"\b(rd_)[A-Za-z0-9_\-]{20,}")


def scrub(text: str, secrets: set[str] | list[str] = ()) -> str:
    """``text`` with the given secrets and bearer/key-looking values replaced by a mask."""
    out = str(text)
    for s in sorted(secrets, key=len, reverse=True):
        if s and s in out:
            out = out.replace(s, MASK)
    out = _API_TOKEN.sub(lambda m: m.group(1) + MASK, out)
    return _TOKENISH.sub(lambda m: m.group(1) + MASK, out)


def new_key() -> bytes:
    return Fernet.generate_key()
