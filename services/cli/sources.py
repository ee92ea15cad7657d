"""`solograph sources ...`: the command line of the sources index.

Reads (`search`, `list`, `tags`, `related`) print, with `--json`, exactly what
`reads.source_search` returns; writes run the index's jobs in-process; `crawl` runs a Scrapy
spider in a child process, as the worker does.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from solograph import reads
from solograph.errors import BadQuery
from solograph.sources import CRAWLS
from solograph_services.cli.output import Formatter, emit, plural

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

COMMANDS = {"sources": "talks, launches, revenue pages, Telegram: search and fill the index"}

EPILOG = """examples:
  solograph sources search "pricing tiers" -s youtube -n 5
  solograph sources list                   what each source holds, its last run
  solograph sources list -s producthunt    the newest items of one source
  solograph sources tags                   topic tags and how many videos carry each
  solograph sources related dQw4w9WgXcQ    videos sharing the most tags with that one
  solograph sources index-youtube -c GregIsenberg -n 10
  solograph sources index-youtube https://www.youtube.com/watch?v=dQw4w9WgXcQ
  solograph sources import-telegram ~/Downloads/ChatExport/result.json
  solograph sources crawl producthunt      polite: robots.txt, throttled, clear user agent
  solograph sources topic pricing "price tiers" paywall    extend the topics table
  solograph sources index-youtube --import-file 'Talk [dQw4w9WgXcQ].info.json'
  solograph sources delete youtube/dQw4w9WgXcQ
  solograph sources delete telegram        a whole source
"""


def _json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the answer object as JSON")


def add(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(
        "sources", help=COMMANDS[name],
        description="The sources index: YouTube transcripts, ProductHunt and TrustMRR pages, "
                    "Telegram exports, searchable together.",
        epilog=EPILOG, formatter_class=Formatter)
    actions = p.add_subparsers(dest="sources_command", metavar="ACTION", required=True)

    q = actions.add_parser("search", help="find documents; each video once, at its best chunk")
    q.add_argument("query", nargs="+", help='words to find, e.g. "pricing tiers"')
    q.add_argument("-s", "--source", help="only this source: youtube, producthunt, ...")
    q.add_argument("-n", "--limit", type=int, default=10, help="how many (default 10)")
    _json(q)
    q = actions.add_parser("list", help="what each source holds; with -s, its newest items")
    q.add_argument("-s", "--source", help="only this source, with its newest items")
    q.add_argument("-n", "--limit", type=int, default=10, help="how many items (default 10)")
    _json(q)
    q = actions.add_parser("tags", help="topic tags with their videos and keywords")
    _json(q)
    q = actions.add_parser("related", help="videos sharing the most topic tags with VIDEO")
    q.add_argument("video", help="a video id or URL")
    q.add_argument("-n", "--limit", type=int, default=10, help="how many (default 10)")
    _json(q)
    q = actions.add_parser("delete", help="remove SOURCE/ID (a video with all its chunks), or "
                                          "a whole SOURCE")
    q.add_argument("key", metavar="SOURCE[/ID]", help="e.g. youtube/dQw4w9WgXcQ, or telegram")
    _json(q)
    q = actions.add_parser("index-youtube", help="index videos (URLs, ids) or a channel's newest")
    q.add_argument("urls", nargs="*", metavar="URL", help="video URLs or ids")
    q.add_argument("-c", "--channel", help="a channel handle or URL, e.g. GregIsenberg")
    q.add_argument("-n", "--limit", type=int, default=10,
                   help="how many of the channel's newest videos (default 10)")
    q.add_argument("--force", action="store_true", help="index videos already indexed again")
    q.add_argument("--import-file", metavar="INFO.json", type=Path, action="append",
                   help="a saved yt-dlp info dict (--write-info-json), its .vtt beside it: "
                        "indexed offline (repeatable)")
    _json(q)
    q = actions.add_parser("import-telegram", help="index a Telegram Desktop export")
    q.add_argument("path", type=Path, help="the export's result.json")
    q.add_argument("--username", default="", help="the channel's @username, for t.me links")
    _json(q)
    q = actions.add_parser("crawl", help=f"run a spider: {' or '.join(CRAWLS)}")
    q.add_argument("spider", choices=CRAWLS)
    q.add_argument("--start-url", help="where to start instead of the spider's default")
    q.add_argument("--max-pages", type=int, default=50, help="pages to fetch at most (50)")
    q.add_argument("--delay", type=float, default=None,
                   help="seconds between requests (default 2; AutoThrottle adapts it)")
    _json(q)
    q = actions.add_parser("topic", help="add keywords to a topic tag and tag every video again")
    q.add_argument("tag")
    q.add_argument("keywords", nargs="+", help='words or phrases, e.g. "price tiers"')
    _json(q)


def run(settings: Settings, args: argparse.Namespace) -> int:
    action = args.sources_command
    if action in ("search", "list", "tags", "related"):
        answer = reads.source_search(
            settings, " ".join(args.query) if action == "search" else getattr(args, "video", None),
            action=action, source=getattr(args, "source", None),
            limit=getattr(args, "limit", 10))
        render = {"search": _render_results, "related": _render_related, "list": _render_list,
                  "tags": _render_tags}[action]
        emit(args, answer, render)
        from solograph_services.cli.embedding import after_read

        after_read(settings, args, answer, "sources")
        return 0
    from solograph.sources import sync
    from solograph_services.cli.embedding import embed_after

    if action == "delete":
        return emit(args, sync.delete_source(settings, args.key), _render_deleted)
    if action == "index-youtube":
        if not args.urls and not args.channel and not args.import_file:
            raise BadQuery("give video URLs, a channel or --import-file",
                           hint="solograph sources index-youtube -c GregIsenberg -n 10")
        answer = sync.index_youtube(settings, args.urls, channel=args.channel, limit=args.limit,
                                    force=args.force, import_files=args.import_file)
        emit(args, embed_after(settings, args, answer, "sources"), _render_report)
        # Every video failing is a failed run (cron and scripts see it), not a quiet 0.
        return 1 if answer["failed"] and not answer["indexed"] and not answer["skipped"] else 0
    if action == "import-telegram":
        answer = sync.import_telegram(settings, args.path, username=args.username)
        return emit(args, embed_after(settings, args, answer, "sources"), _render_report)
    if action == "topic":
        return emit(args, sync.add_topic(settings, args.tag, args.keywords), _render_topic)
    from solograph_services.common.crawls import run_crawl

    report = run_crawl(settings, args.spider, start_url=args.start_url,
                       max_pages=args.max_pages, delay=args.delay)
    return emit(args, embed_after(settings, args, report, "sources"), _render_report)


def _render_results(a: dict) -> None:
    if not a["results"]:
        print(f"no sources match {a['query']!r}")
    for i, r in enumerate(a["results"], 1):
        print(f"{i}. {r['title']}")
        print(f"   {r['source']} · {r['date'] or 'undated'} · {r['match']} words · {r['url']}")
        if r["content"]:
            print(f"   {r['content']}")


def _render_related(a: dict) -> None:
    v = a["video"]
    print(f"{v['title']}  ({v['video']}; tags: {', '.join(v['tags'])})")
    for i, r in enumerate(a["results"], 1):
        print(f"{i}. {r['title']}  [{', '.join(r['shared'])}]  {r['url']}")


def _render_list(a: dict) -> None:
    if not a["sources"]:
        print("the sources index is empty")
    for s in a["sources"]:
        run = s["last_run"]
        last = (f"; last run {run['finished']}: {run['indexed']} indexed, "
                f"{run['problems']} problems" if run else "")
        print(f"{s['source']:<12} {s['items']:>7} items {s['documents']:>8} documents{last}")
    for r in a.get("results", []):
        print(f"  {r['date'] or '          '}  {r['title']}  {r['url']}")


def _render_tags(a: dict) -> None:
    for t in a["tags"]:
        print(f"{t['tag']:<16} {t['videos']:>5} videos  {', '.join(t['keywords'][:8])}")


def _render_deleted(a: dict) -> None:
    print(f"deleted {a['deleted']}: {plural(a['documents'], 'document')}, "
          f"{plural(a['videos'], 'video')}")


def _render_report(a: dict) -> None:
    print(a["summary"])
    for p in a.get("problems", []):
        print(f"  problem: {p['url']}: {p['reason']}")


def _render_topic(a: dict) -> None:
    print(f"{a['tag']}: +{', '.join(a['keywords'])}; {a['videos_tagged']} videos carry tags")
