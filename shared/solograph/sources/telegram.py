"""Telegram: import a Telegram Desktop export (`result.json`) of a channel, group or chat.

Telegram Desktop ("Export chat history", JSON) writes one object per chat: `name`, `type`,
`id` and `messages`, each message with `id`, `type` ("message" or "service"), `date`,
`from`, `text` (a string, or a list of strings and `{"type", "text", "href"?}` pieces) and
`text_entities` (the same pieces, always a list), plus `reactions` in newer versions. A full
account export nests the chats under `chats.list`. Each message with text becomes one document
`telegram/<chat id>-<message id>`; reactions count as upvotes; service messages are skipped.

An export is a file someone hands us: invalid UTF-8 is replaced and counted, values nested
deeper than bounded_json.MAX_DEPTH are cut out (the messages around them still count), and a
message whose fields are not what Telegram writes is skipped and counted, never a traceback.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from solograph import bounded_json
from solograph.bounded_json import scalar
from solograph.errors import BadQuery
from solograph.sources.store import Document, put
from solograph.text.plural import plural
from solograph.text.secrets import redact_cut

SOURCE = "telegram"
MAX_TITLE = 90
MAX_BYTES = 2_000_000_000
MAX_REACTIONS = 10**9  # per reaction: a larger count in an export is garbage


def _pieces_text(value: object) -> tuple[str, list[str]]:
    """Plain text and links of a `text` / `text_entities` value."""
    if isinstance(value, str):
        return value, []
    parts: list[str] = []
    links: list[str] = []
    for piece in value if isinstance(value, list) else []:
        if isinstance(piece, str):
            parts.append(piece)
        elif isinstance(piece, dict):
            text = scalar(piece.get("text"))
            parts.append(text)
            href = piece.get("href")
            if isinstance(href, str) and href:
                links.append(href)
            elif piece.get("type") == "link" and text:
                links.append(text)
    return "".join(parts), links


def message_text(message: dict) -> tuple[str, list[str]]:
    entities = message.get("text_entities")
    if isinstance(entities, list) and entities:
        return _pieces_text(entities)
    return _pieces_text(message.get("text", ""))


def _reactions(message: dict) -> int:
    total = 0
    reactions = message.get("reactions")
    for r in reactions if isinstance(reactions, list) else ():
        count = r.get("count") if isinstance(r, dict) else None
        if isinstance(count, int) and not isinstance(count, bool):
            total += min(max(0, count), MAX_REACTIONS)
    return total


def chats(data: object) -> Iterator[dict]:
    """The chats of an export: one chat's `result.json`, or a full export's `chats.list`."""
    if not isinstance(data, dict):
        return
    if isinstance(data.get("messages"), list):
        yield data
    nested = data.get("chats")
    if isinstance(nested, dict) and isinstance(nested.get("list"), list):
        yield from (c for c in nested["list"] if isinstance(c, dict)
                    and isinstance(c.get("messages"), list))


def documents(chat: dict, *, username: str = "") -> tuple[list[Document], int]:
    """The documents of one chat, and how many messages were skipped as unreadable."""
    chat_id = scalar(chat.get("id")).removeprefix("-100")
    name = scalar(chat.get("name")) or "Telegram"
    kind = scalar(chat.get("type"))
    channel_like = kind in ("public_channel", "private_channel", "public_supergroup",
                            "private_supergroup")
    docs, bad = [], 0
    for message in chat["messages"]:
        if not isinstance(message, dict) or message.get("type", "message") != "message":
            continue
        msg_id = message.get("id")
        if not isinstance(msg_id, int) or isinstance(msg_id, bool):
            bad += 1
            continue
        text, links = message_text(message)
        text = text.strip()
        if not text:
            continue
        if username:
            url = f"https://t.me/{username.lstrip('@')}/{msg_id}"
        elif channel_like and chat_id:
            url = f"https://t.me/c/{chat_id}/{msg_id}"
        else:
            url = ""
        first = text.splitlines()[0].strip()
        title = f"{name}: {redact_cut(first, MAX_TITLE)}" + ("…" if len(first) > MAX_TITLE else "")
        docs.append(Document(
            SOURCE, f"{chat_id or 'chat'}-{msg_id}", title, url, text,
            scalar(message.get("date")), upvotes=_reactions(message),
            metadata={"chat": name, "chat_type": kind, "author": scalar(message.get("from")),
                      "links": links, "reactions": _reactions(message)}))
    return docs, bad


def import_export(conn: sqlite3.Connection, path: Path, *, username: str = "") -> dict:
    """Index every message with text from a Telegram Desktop export file."""
    reasons: dict[str, int] = {}
    try:
        if path.stat().st_size > MAX_BYTES:
            raise BadQuery(f"{path} is larger than {MAX_BYTES} bytes")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise BadQuery(f"no such file: {path}",
                       hint="export with Telegram Desktop: chat menu → Export chat history → "
                            "JSON, then pass its result.json") from None
    except OSError as exc:
        raise BadQuery(f"{path} cannot be read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("utf-8-sig", "replace")
        reasons["invalid_utf8"] = 1
    try:
        data, cut = bounded_json.loads(text)
    except ValueError as exc:
        raise BadQuery(f"{path} is not a Telegram JSON export: {exc}") from None
    if cut:
        reasons["too_deep"] = cut
    found = list(chats(data))
    if not found:
        raise BadQuery(f"{path} holds no chat with messages",
                       hint="choose the JSON format (not HTML) when exporting")
    written, skipped, names = 0, 0, []
    for chat in found:
        docs, bad = documents(chat, username=username if len(found) == 1 else "")
        written += put(conn, docs)
        skipped += bad
        names.append(scalar(chat.get("name")) or scalar(chat.get("id")) or "chat")
    if skipped:
        reasons["unreadable_message"] = skipped
    return {"source": SOURCE, "file": str(path), "chats": names, "indexed": written,
            "skipped": skipped, "reasons": reasons,
            "summary": f"{plural(written, 'message')} indexed from {', '.join(names)}"
                       + (f", {plural(skipped, 'unreadable message')} skipped"
                          if skipped else "")}
