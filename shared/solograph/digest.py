"""Content digests for file names and keys."""

from __future__ import annotations


def sha256_hex(data: bytes) -> str:
    """hashlib's sha256, from the interpreter's own module where it has one: importing hashlib
    loads OpenSSL first, 2-3 ms of every hook run (the digest is the same)."""
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # CPython 3.12 and later
        except ImportError:
            from hashlib import sha256
    return sha256(data).hexdigest()
