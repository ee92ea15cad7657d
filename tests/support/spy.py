"""Counting the calls a test cares about, the real function still called."""

from __future__ import annotations


def calls(monkeypatch, owner: object, name: str, arg: int = 0) -> list:
    """Each call of `owner.name` from now on, recorded by its positional argument `arg` (a
    method replaced on its class counts `self` as argument 0)."""
    seen: list = []
    real = getattr(owner, name)

    def spy(*args, **kwargs):
        seen.append(args[arg])
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, spy)
    return seen
