"""The "racy git" rule every disk check keeps: a file or folder changed within RACY_NS of when
it was looked at may change again with its mtime (or ctime) unmoved, since file times move at
the clock's tick; such a look is not trusted, and the thing is looked at again next time."""

from __future__ import annotations

RACY_NS = 2_000_000_000


def racy(changed_ns: int, looked_ns: int) -> bool:
    """Whether a look at `looked_ns` of what last changed at `changed_ns` may have missed a
    change."""
    return looked_ns - changed_ns < RACY_NS
