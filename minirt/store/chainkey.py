"""The keyed chain: journal digests that only the holder of a secret key can compute.

The plain chain (``sha256:<hex>``, the default) catches accidents: a bit flip, a lost row, a
hand edit that forgot to fix the digests. It does not stop anyone who can write the store file or
database from rewriting a row *and* recomputing every digest after it, because sha256 needs no
secret. The keyed chain replaces each digest by ``hmac-sha256:<key id>:<hex>``, an HMAC-SHA256
under a key the operator holds outside the store (an environment variable, a secrets manager),
so a rewritten row cannot be given a digest that verifies.

Keys are given as ``ChainKeys``, or as text ``"<key id>=<secret>[,<key id>=<secret>...]"``
(also read from ``$MINIRT_CHAIN_KEY`` when a store is opened without ``chain_key=``). The first key
signs new events; every key listed verifies the events it signed, so **rotation** is: put the new
key first and keep the old ones after it (``"2027-01=NEW,2026-06=OLD"``); events already written
keep verifying with the old key, new ones are signed with the new one. Drop an old key only once
no kept journal uses it (``minirt prune`` deletes finished runs): a journal signed with a key
the store was not given is refused with :class:`ChainKeyUnknown`, never trusted.

Guarantees: with a key configured, every event of every journal must carry a valid HMAC under one
of the given keys: a plain ``sha256:`` digest (a row forged with a recomputed plain chain) or a
wrong HMAC is :class:`~minirt.store.base.JournalCorrupted` naming the run and the seq. Does not:
hide the journal (it is signed, not encrypted); protect a key that is stored next to the data;
stop someone holding the key; or stop the deletion of a whole run (rows and head together).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Mapping

from ..errors import MinirtError

PREFIX = "hmac-sha256:"
ENV_VAR = "MINIRT_CHAIN_KEY"
MIN_SECRET_BYTES = 16
_KEY_ID = re.compile(r"[A-Za-z0-9._-]{1,32}")


class ChainKeyInvalid(MinirtError):
    """The chain key text or arguments are not usable (see the module docstring)."""

    fields = ("reason",)
    template = "chain key: {reason}"


class ChainKeyUnknown(MinirtError):
    """A journal event is signed with a key id this store was not given: it cannot be verified,
    so it is not used (give the old key after the current one, see rotation)."""

    fields = ("run_id", "seq", "key_id")
    template = ("journal of run {run_id} at seq {seq} is signed with chain key {key_id!r}, "
                "which this store was not given: it cannot be verified")


class ChainKeys:
    """An ordered key ring: ``current`` signs, every key verifies. The secrets never appear in
    ``repr`` or in any error message."""

    __slots__ = ("current", "_secrets")

    def __init__(self, keys: Mapping[str, bytes | str], current: str | None = None) -> None:
        if not keys:
            raise ChainKeyInvalid(reason="at least one key is needed")
        secrets: dict[str, bytes] = {}
        for key_id, secret in keys.items():
            if not isinstance(key_id, str) or not _KEY_ID.fullmatch(key_id):
                raise ChainKeyInvalid(reason=f"key id {ascii(key_id)[:40]} is not 1-32 of "
                                             "A-Z a-z 0-9 . _ -")
            raw = secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)
            if len(raw) < MIN_SECRET_BYTES:
                raise ChainKeyInvalid(reason=f"the secret of key {key_id!r} has {len(raw)} "
                                             f"bytes, at least {MIN_SECRET_BYTES} are needed")
            secrets[key_id] = raw
        self.current = current if current is not None else next(iter(secrets))
        if self.current not in secrets:
            raise ChainKeyInvalid(reason=f"current key {self.current!r} is not in the ring")
        self._secrets = secrets

    @classmethod
    def parse(cls, text: str) -> ChainKeys:
        """``"id=secret,id2=secret2"``: the first key signs, all verify."""
        keys: dict[str, bytes | str] = {}
        for part in text.split(","):
            key_id, sep, secret = part.strip().partition("=")
            if not sep:
                raise ChainKeyInvalid(reason="expected 'key_id=secret[,key_id=secret...]'")
            if key_id in keys:
                raise ChainKeyInvalid(reason=f"key id {key_id!r} is given twice")
            keys[key_id] = secret
        return cls(keys)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ChainKeys | None:
        """The keys in ``$MINIRT_CHAIN_KEY``, or None when it is unset or empty."""
        text = (os.environ if environ is None else environ).get(ENV_VAR, "").strip()
        return cls.parse(text) if text else None

    @property
    def key_ids(self) -> tuple[str, ...]:
        return tuple(self._secrets)

    def sign(self, message: bytes) -> str:
        """The keyed digest of ``message`` under the current key."""
        mac = hmac.new(self._secrets[self.current], message, hashlib.sha256).hexdigest()
        return f"{PREFIX}{self.current}:{mac}"

    def matches(self, digest: str, message: bytes, *, run_id: str, seq: int) -> bool:
        """Whether ``digest`` (``hmac-sha256:<id>:<hex>``) is the HMAC of ``message`` under key
        ``<id>``. Raises :class:`ChainKeyUnknown` for a key id not in the ring."""
        key_id, _, mac = digest[len(PREFIX):].partition(":")
        secret = self._secrets.get(key_id)
        if secret is None:
            raise ChainKeyUnknown(run_id=run_id, seq=seq, key_id=key_id[:40])
        expected = hmac.new(secret, message, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, mac)

    def __repr__(self) -> str:
        return f"ChainKeys(current={self.current!r}, key_ids={list(self._secrets)!r})"


def resolve(chain_key: ChainKeys | str | None) -> ChainKeys | None:
    """What a store's ``chain_key=`` argument means: keys, key text, or None for
    ``$MINIRT_CHAIN_KEY`` (plain sha256 when that is unset too)."""
    if chain_key is None:
        return ChainKeys.from_env()
    if isinstance(chain_key, ChainKeys):
        return chain_key
    if isinstance(chain_key, str):
        return ChainKeys.parse(chain_key)
    raise ChainKeyInvalid(reason=f"chain_key must be ChainKeys or text, not "
                                 f"{type(chain_key).__name__}")
