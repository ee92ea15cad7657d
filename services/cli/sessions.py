"""The session index's commands: sessions (search, one session's matches, export) and
sync-sessions."""

from __future__ import annotations

import argparse
import sys

from solograph import reads
from solograph.config import AGENT_NAMES
from solograph.errors import BadQuery
from solograph_services.cli.output import Formatter, add_json, emit, plural, summary

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

COMMANDS = {
    "sessions": "search past sessions of every coding agent, read one, or export one",
    "sync-sessions": "read new and grown session files of every agent into the index",
}


def add(sub: argparse._SubParsersAction, name: str) -> None:
    if name == "sync-sessions":
        p = sub.add_parser(name, help=COMMANDS[name],
                           description="Read new and grown transcripts into the index "
                                       "(searches sync by themselves; this warms it).")
        add_json(p)
        return
    p = sub.add_parser(
        "sessions", help=COMMANDS[name],
        description="Search past sessions of Claude Code, Codex, Gemini, Cursor, Copilot, "
                    "OpenCode and aider (archived ones too), read the matching messages of "
                    "one, or export one whole.",
        epilog='examples:\n  solograph sessions "webhook retry" -p my-app\n'
               '  solograph sessions "webhook retry" --agent codex\n'
               '  solograph sessions "webhook retry" --session 258c7280\n'
               "  solograph sessions export 258c7280 --format markdown",
        formatter_class=Formatter)
    p.add_argument("query", nargs="+", metavar="QUERY",
                   help='words to find, e.g. "webhook retry"; or `export ID`')
    p.add_argument("-p", "--project", help="only sessions in this project's folder")
    p.add_argument("--agent", choices=AGENT_NAMES, help="only this coding agent's sessions")
    p.add_argument("-n", "--limit", type=int, default=10, help="how many (default 10)")
    p.add_argument("--session", metavar="ID", help="the matching messages of this session")
    p.add_argument("--exclude-session", metavar="ID", help="leave this session out (the asker)")
    p.add_argument("--format", choices=("markdown", "jsonl"), default=None,
                   help="with `export`: markdown (default) or jsonl")
    add_json(p)


def run(settings: Settings, args: argparse.Namespace) -> int:
    if args.command == "sync-sessions":
        from solograph.sessions.sync import sync_sessions
        from solograph_services.cli.embedding import after_read, embed_after

        return emit(args, embed_after(settings, args, sync_sessions(settings), "sessions"),
                    summary)
    words = args.query
    if words == ["export"]:
        raise BadQuery("`sessions export` needs the session's id",
                       hint='solograph sessions export ID (the id of a `solograph sessions '
                            '"words"` result); to search for the word, add another')
    if words[0] == "export" and len(words) == 2:
        return _export(settings, args, words[1])
    if args.format:
        raise BadQuery("--format goes with `export`",
                       hint="solograph sessions export ID --format jsonl")
    answer = reads.session_search(settings, " ".join(words), project=args.project,
                                  limit=args.limit, session=args.session,
                                  exclude_session=args.exclude_session, agent=args.agent)
    emit(args, answer, _render_messages if args.session else _render_sessions)
    from solograph_services.cli.embedding import after_read

    after_read(settings, args, answer, "sessions")
    return 0


def _render_sessions(a: dict) -> None:
    if not a["results"]:
        print(f"no sessions match {a['query']!r}")
    for i, r in enumerate(a["results"], 1):
        when = f"{r['first'][:16].replace('T', ' ')} → {r['last'][:16].replace('T', ' ')}"
        print(f"{i}. {r['title'] or '(untitled)'}")
        print(f"   {r['agent']} · {r['project']} · {when} · {plural(r['messages'], 'message')} · "
              f"{'found by meaning' if r['match'] == 'meaning' else r['match'] + ' words'}")
        print(f"   {r['resume'] or 'session ' + r['session'] + ' (transcript deleted)'}")
        if r["snippet"]:
            print(f"   {r['snippet']}")
    if a.get("respelled"):
        print("also searched: " + ", ".join(f"{k} → {v}" for k, v in a["respelled"].items()))


def _render_messages(a: dict) -> None:
    s = a["session"]
    print(f"{s['title']}  ({s['session']}, {s['transcript']})")
    print(f"{a['matches']} of {a['total_matches']} matching messages, with neighbours\n")
    for m in a["messages"]:
        mark = ">>" if m["match"] else "  "
        who = m["role"] + (" (sub-agent)" if m["sidechain"] else "")
        print(f"{mark} {who} · {m['at'][:19].replace('T', ' ')}")
        for line in (m["text"] or "").splitlines() or [""]:
            print(f"{mark}   {line}")
        for t in m["tools"]:
            print(f"{mark}   [{t['name']}] " + " ".join(t["input"].values())[:200])
        print()


def _export(settings: Settings, args: argparse.Namespace, session_id: str) -> int:
    answer = reads.session_export(settings, session_id, fmt=args.format or "markdown")
    return emit(args, answer, lambda a: sys.stdout.write(a["content"]))
