"""Freshness in every answer: did the search-time sync finish, and how new is what the index
holds.

    {"complete": bool, "pending": int, "unreadable": int, "as_of": str | null}
    (+ "embedding_pending": int, with the meaning lane on)

`complete`/`pending`: whether the sync run before the answer read every changed file, and how
many it left (the next search, the explicit sync command or the worker reads them).
`unreadable`: files (or folders) the process may not open, say transcripts of another uid;
while any is, the answer is not complete, since what they hold is missing from it. `as_of`
comes from the index itself (each index's `as_of`: the newest message, page mtime, scan or run
it holds; ISO-8601 UTC to the second), never from the clock, so an unchanged index answers the
same bytes. One field comes from a clock: where a search's disk check left transcripts
unchecked (the session index past a few hundred transcripts, sessions/cold.py), the agent's
`unchecked` and `checked_as_of` say how many, and since when every one was stat'ed.
"""

from __future__ import annotations


def __getattr__(name: str) -> object:
    # The answer's shape lives in shapes.py: building a TypedDict on every start of a read
    # costs more than the read's own imports of this module.
    if name == "Freshness":
        from solograph.shapes import Freshness

        return Freshness
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


UNREADABLE_NOTE = ("{n} file(s) or folder(s) could not be read (permission denied?) and are "
                   "missing from this answer; the index must run as the files' owner "
                   "(SOLOGRAPH_UID / SOLOGRAPH_GID in the stack)")


def freshness(*, pending: int = 0, as_of: str | None = None, unreadable: int = 0,
              agents: dict | None = None) -> dict:
    out: dict[str, object] = {"complete": pending == 0 and unreadable == 0,
                              "pending": pending, "unreadable": unreadable, "as_of": as_of}
    if agents is not None:  # the session index: the same, for each agent it reads
        out["agents"] = agents
    return out


def attach(answer: dict, fresh: dict, note: str | None = None) -> dict:
    """`answer` with its `freshness` (and, when files were left unread or could not be read,
    a `note`)."""
    out = {**answer, "freshness": fresh}
    notes = [note] if fresh["pending"] and note else []
    if fresh.get("unreadable"):
        notes.append(UNREADABLE_NOTE.format(n=fresh["unreadable"]))
    if notes:
        out["note"] = "; ".join(notes)
    return out


def iso(value: object) -> str | None:
    """A stored time (epoch seconds, epoch nanoseconds, or an ISO-8601 text) as ISO-8601 UTC to
    the second; None when there is none or it cannot be read."""
    if value is None or value == "":
        return None
    from datetime import UTC, datetime

    try:
        if isinstance(value, int | float) or (isinstance(value, str)
                                              and value.replace(".", "", 1).isdigit()):
            ts = float(value)
            if ts > 1e14:  # nanoseconds
                ts /= 1e9
            when = datetime.fromtimestamp(ts, tz=UTC)
        else:
            when = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
            when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")
