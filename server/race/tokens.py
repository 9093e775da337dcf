"""Seat, player and admin tokens: only their digests are stored.

A token is 18 random bytes (``secrets.token_urlsafe(18)``, 144 bits): the
client keeps it, the server keeps ``hash_token(token)`` (SHA-256, hex) and
looks a presented token up by its digest. A plain hash suffices because the
tokens are random, not chosen by people: nothing can be guessed from the
digest, so no salt and no slow hash are needed. Digests are compared with
:func:`same_token` (:func:`hmac.compare_digest`), whose time does not depend
on where the two first differ; a lookup by digest (a dict key, a Redis hash
field) leaks at most how a digest the attacker cannot steer compares.

Data written before tokens were hashed holds them in plain text: a stored
value that is not a digest is taken for a token and hashed when it is read
(:func:`stored_digest`), so those seats keep working, and the document is
written back hashed at its next change.

>>> digest = hash_token("nPpiqccXLdnGtT_QkMiaadjX")
>>> len(digest), is_digest(digest), is_digest("nPpiqccXLdnGtT_QkMiaadjX")
(64, True, False)
>>> same_token(digest, hash_token("nPpiqccXLdnGtT_QkMiaadjX")), same_token(digest, "x")
(True, False)
>>> stored_digest("nPpiqccXLdnGtT_QkMiaadjX") == digest == stored_digest(digest)
True
"""

from __future__ import annotations

import hashlib
import hmac
import string
from typing import Final

_HEX: Final = frozenset(string.hexdigits.lower())
DIGEST_LENGTH: Final = 64


def hash_token(token: str) -> str:
    """The digest kept in place of ``token``."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_token(a: str, b: str) -> bool:
    """Whether two digests (or two tokens) are equal, in time independent of their content."""
    return hmac.compare_digest(a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass"))


def is_digest(value: str) -> bool:
    """Whether a stored value is a digest (tokens are 24 characters, never 64 hex digits)."""
    return len(value) == DIGEST_LENGTH and all(ch in _HEX for ch in value)


def stored_digest(value: str) -> str:
    """A stored token's digest: itself, or the digest of a token stored in
    plain text before tokens were hashed."""
    return value if is_digest(value) else hash_token(value)


def code_text(code: str) -> str:
    """A code the server drew (an invite, a handoff, a device move) as
    compared: case and spaces ignored, inside too (typed in groups).

    >>> code_text(" hx4n7 r2kqa ")
    'HX4N7R2KQA'
    """
    return "".join(code.split()).upper()
