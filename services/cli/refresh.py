"""The maintenance commands: `solograph refresh`, the nightly job for cron and launchd with
nothing but the command, and `solograph rebuild`, which makes every full-text table again from
what its index holds (FTS is derived state)."""

from __future__ import annotations

import argparse

from solograph.errors import SolographError
from solograph_services.cli.output import add_json, emit, parser, summary

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

COMMANDS = {"refresh": "the nightly job: registry merge, scan of what changed, session sync, "
                       "KB index",
            "rebuild": "make the full-text tables again from what each index holds"}


def add(sub: argparse._SubParsersAction, name: str) -> None:
    if name == "rebuild":
        p = parser(sub, name, COMMANDS[name], "  solograph rebuild            # every index\n"
                                              "  solograph rebuild sessions kb --json")
        p.add_argument("index", nargs="*", help="only these indexes (default: every one)")
        add_json(p)
        return
    p = parser(sub, name, COMMANDS[name],
               "  solograph refresh                       # what cron runs at 4:00\n"
               "  SOLOGRAPH_SCOPE='app api' solograph refresh   # only these projects\n"
               "  0 4 * * * solograph refresh             # the crontab line")
    add_json(p)


def run(settings: Settings, args: argparse.Namespace) -> int:
    if args.command == "rebuild":
        return emit(args, _rebuild(settings, args.index), summary)
    from solograph.refresh import refresh

    return emit(args, _embedded(settings, args, refresh(settings)), summary)


def _embedded(settings: Settings, args: argparse.Namespace, out: dict) -> dict:
    """The refresh's report with what its syncs left without vectors embedded (the meaning
    lane on), as `sync-sessions` and `index-kb` do, a progress bar each on a terminal."""
    from solograph_services.cli.embedding import embed_after

    for store in ("sessions", "kb"):
        if store not in out:
            continue
        done = embed_after(settings, args, out[store], store)
        if "embedding" in done:
            out[store], e = done, done["embedding"]
            out["summary"] += f"\n{store}: embedded {e['embedded']} ({e['pending']} pending)"
    return out


def _rebuild(settings: Settings, names: list[str]) -> dict:
    from solograph.index import resolve
    from solograph.indexes import all_indexes, get

    chosen = [get(n) for n in names] if names else [i for i in all_indexes() if i.rebuild]
    done, skipped = [], []
    for index in chosen:
        try:
            there = bool(index.rebuild) and index.path(settings).exists()
        except SolographError:  # not configured (a KB without KB_PATH)
            there = False
        if not there:  # nothing indexed yet: a rebuild creates no store
            skipped.append(index.name)
            continue
        done.append(resolve(index.rebuild)(settings))
    return {"rebuilt": done, "skipped": skipped,
            "summary": "\n".join([d["summary"] for d in done] + (
                [f"not indexed yet: {', '.join(skipped)}"] if skipped else []))}
