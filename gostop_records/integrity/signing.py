"""Ed25519 keys for signing records: key files, fingerprints, and what exactly is signed.

The hash chain shows that a record was not edited in place, but whoever holds the file can
change an event and recompute every hash after it. A signature is what such a person cannot
recompute: a recorder signs the head of the record at the end of each hand, players may
countersign it, and only the holders of the private keys can make those signatures.

A key file is the PKCS #8 PEM of the private key (readable by OpenSSL), after a few comment
lines naming the holder and the public key; it is written with mode 0600 and never
overwritten. A key is named by its fingerprint: the first 50 bits of the SHA-256 of the raw
public key in Crockford base32, grouped like a seal (``ed25519:K7Q2-M9XA-3F``), short enough
to read out or compare with what a phone shows.

Every signed message starts with a domain tag and names the game, so that a signature made
for one purpose or one game can never be passed off for another.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from ..errors import GostopError

__all__ = [
    "KEY_DIR_ENV",
    "KeyFileError",
    "PublicKey",
    "SigningKey",
    "checkpoint_message",
    "countersign_message",
    "crockford",
    "default_key_dir",
    "game_key",
    "game_key_path",
    "read_key_file",
    "server_key_path",
    "write_key_file",
]

#: The environment variable naming the folder of per-game recorder keys.
KEY_DIR_ENV = "GOSTOP_KEYS"
#: Crockford's base32: no I, L, O or U, so that what is read aloud or written by hand
#: cannot be mistaken (decoding takes O for 0 and I, L for 1).
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_CHECKPOINT_TAG = b"gostop-records checkpoint v1"
_COUNTERSIGN_TAG = b"gostop-records countersignature v1"
_PEM = re.compile(rb"-----BEGIN PRIVATE KEY-----.+?-----END PRIVATE KEY-----", re.S)


class KeyFileError(GostopError):
    """A key file that cannot be read, written or used."""


def crockford(data: bytes, chars: int) -> str:
    """The first ``chars`` characters of ``data`` in Crockford base32 (5 bits each)."""
    bits = int.from_bytes(data, "big")
    total = len(data) * 8
    out = []
    for k in range(chars):
        shift = total - 5 * (k + 1)
        out.append(CROCKFORD[(bits >> shift) & 31 if shift >= 0 else (bits << -shift) & 31])
    return "".join(out)


def group(text: str) -> str:
    """``K7Q2M9XA3F`` as ``K7Q2-M9XA-3F``: groups of four for reading."""
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))


def _b64decode(text: str, what: str, size: int) -> bytes:
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise GostopError(f"{what} is not base64") from None
    if len(raw) != size:
        raise GostopError(f"{what} is {len(raw)} bytes, not {size}")
    return raw


@dataclass(frozen=True, slots=True)
class PublicKey:
    """An Ed25519 public key: 32 raw bytes."""

    raw: bytes

    @classmethod
    def from_text(cls, text: str) -> PublicKey:
        """From the base64 of a ``key_added`` or ``result_countersigned`` event."""
        return cls(_b64decode(text, "the public key", 32))

    @property
    def text(self) -> str:
        return base64.b64encode(self.raw).decode("ascii")

    @property
    def fingerprint(self) -> str:
        return "ed25519:" + group(crockford(hashlib.sha256(self.raw).digest(), 10))

    def verify(self, signature: str, message: bytes) -> bool:
        """Whether ``signature`` (base64) is this key's signature of ``message``."""
        try:
            sig = _b64decode(signature, "the signature", 64)
        except GostopError:
            return False
        try:
            Ed25519PublicKey.from_public_bytes(self.raw).verify(sig, message)
        except (InvalidSignature, ValueError):
            return False
        return True


class SigningKey:
    """An Ed25519 private key and who holds it."""

    __slots__ = ("_key", "holder", "path", "public")

    def __init__(self, key: Ed25519PrivateKey, holder: str = "", path: Path | None = None) -> None:
        self._key = key
        self.holder = holder
        self.path = path
        raw = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public = PublicKey(raw)

    @classmethod
    def generate(cls, holder: str = "") -> SigningKey:
        return cls(Ed25519PrivateKey.generate(), holder)

    @property
    def fingerprint(self) -> str:
        return self.public.fingerprint

    def sign(self, message: bytes) -> str:
        """The signature of ``message`` in base64."""
        return base64.b64encode(self._key.sign(message)).decode("ascii")

    def pem(self) -> bytes:
        return self._key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )


def checkpoint_message(game_id: str, head_seq: int, head: str) -> bytes:
    """What a recorder signs: the game, the seq of the head and its hash."""
    return b"\n".join((_CHECKPOINT_TAG, game_id.encode(), str(head_seq).encode(), head.encode()))


def countersign_message(game_id: str, seat: int, head_seq: int, head: str) -> bytes:
    """What a player signs: the game, their seat, the seq of the head and its hash."""
    return b"\n".join(
        (
            _COUNTERSIGN_TAG,
            game_id.encode(),
            str(seat).encode(),
            str(head_seq).encode(),
            head.encode(),
        )
    )


# --- key files -----------------------------------------------------------------------------


def default_key_dir() -> Path:
    """Where the recorder keeps the keys it makes per game: ``$GOSTOP_KEYS``, else
    ``$XDG_DATA_HOME/gostop/keys`` (``~/.local/share/gostop/keys``)."""
    env = os.environ.get(KEY_DIR_ENV)
    if env:
        return Path(env)
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local/share")
    return Path(data) / "gostop" / "keys"


def game_key_path(game_id: str, folder: Path | None = None) -> Path:
    """The key file of a game in the key folder (the game id made safe as a file name)."""
    safe = re.sub(r"[^0-9A-Za-z._-]", "_", game_id)
    return (folder or default_key_dir()) / f"{safe}.key"


def server_key_path(store_path: Path) -> Path:
    """The server's own signing key: the key file beside the store (``club.duckdb.key``)."""
    return store_path.with_name(store_path.name + ".key")


def write_key_file(path: Path, key: SigningKey) -> None:
    """Write a new key file with mode 0600; an existing file is never overwritten."""
    path = Path(path)
    text = (
        "# gostop-records signing key (Ed25519). Keep this file private: whoever has it can\n"
        "# sign records in its name.\n"
        f"# holder: {key.holder}\n"
        f"# public: {key.public.text}\n"
        f"# fingerprint: {key.fingerprint}\n"
    ).encode() + key.pem()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise KeyFileError(f"{path}: already exists; a key file is never overwritten") from None
    except OSError as exc:
        raise KeyFileError(f"{path}: cannot write: {exc.strerror}") from None
    try:
        os.write(fd, text)
        os.fsync(fd)
    finally:
        os.close(fd)
    key.path = path


def read_key_file(path: Path) -> SigningKey:
    """Read a key file written by :func:`write_key_file` (or any unencrypted PKCS #8 PEM
    of an Ed25519 key)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KeyFileError(f"{path}: cannot read: {exc.strerror}") from None
    found = _PEM.search(data)
    if found is None:
        raise KeyFileError(f"{path}: not a key file (no PRIVATE KEY block)")
    try:
        key = serialization.load_pem_private_key(found.group(0), password=None)
    except (ValueError, TypeError) as exc:
        raise KeyFileError(f"{path}: the private key cannot be read: {exc}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{path}: not an Ed25519 key")
    holder = ""
    m = re.search(rb"^# holder: (.*)$", data, re.M)
    if m:
        holder = m.group(1).decode("utf-8", "replace").strip()
    return SigningKey(key, holder, path)


def game_key(game_id: str, holder: str, folder: Path | None = None) -> tuple[SigningKey, bool]:
    """The recorder's key of a game in the key folder, made when there is none yet; and
    whether it was made now."""
    path = game_key_path(game_id, folder)
    if path.exists():
        return read_key_file(path), False
    key = SigningKey.generate(holder)
    write_key_file(path, key)
    return key, True
