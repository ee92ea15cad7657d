"""The knowledge base's commands: kb (search, `kb get`), kb-graph, kb-aliases, kb-hint,
index-kb, hook and memgate. Every read takes --json and prints exactly what the MCP tool and the
HTTP API return."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from solograph import reads
from solograph.errors import BadQuery, ConfigError
from solograph_services.cli.output import add_json as _json
from solograph_services.cli.output import emit, plural, summary
from solograph_services.cli.output import parser as _parser

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from solograph.config import Settings

COMMANDS = {
    "kb": "search the knowledge base, or read one page (`kb get PATH`)",
    "kb-graph": "the wiki's link graph: hubs, connectors, orphans, broken links, pages missing "
                "from index.md",
    "kb-aliases": "the alias table (wiki/_aliases.yaml), or groups to add",
    "kb-hint": "the prompt hook's pointer to a wiki page, or nothing",
    "index-kb": "read the KB into its index (searches sync by themselves)",
    "hook": "Claude Code's SessionStart and UserPromptSubmit hook (JSON on stdin; silent with "
            "exit 0 on any failure)",
    "memgate": "the memory nudge's gate: `memgate train LABELLED.jsonl`",
    "compact": "the KB inbox's notes ready to be compacted into the wiki (lists only)",
}


def add(sub: argparse._SubParsersAction, name: str) -> None:
    ADD[name](sub, COMMANDS[name])


def _add_kb(sub: argparse._SubParsersAction, help_: str) -> None:
    p = _parser(sub, "kb", help_,
                '  solograph kb "privacy architecture"\n'
                '  solograph kb "песочница для агента" --pages --expand\n'
                '  solograph kb "webhook" --path projects/acme\n'
                "  solograph kb get wiki/agent-sandboxing.md#Setup")
    p.add_argument("query", nargs="+", metavar="QUERY", help='words to find; or `get PATH`')
    p.add_argument("--path", help="only documents under this folder of the KB")
    p.add_argument("--pages", action="store_true", help="only the wiki (`kb: pages:`)")
    p.add_argument("--expand", action="store_true",
                   help="add up to 3 pages the hits link to most")
    p.add_argument("-n", "--limit", type=int, default=10, help="how many (default 10)")
    _json(p)


def _add_graph(sub: argparse._SubParsersAction, help_: str) -> None:
    p = _parser(sub, "kb-graph", help_,
                "  solograph kb-graph\n  solograph kb-graph --check        # a pre-commit gate\n"
                "  solograph kb-graph --page agent-sandboxing\n"
                "  solograph kb-graph --path notes/ --json")
    p.add_argument("--path", help="this folder of the KB instead of the wiki")
    p.add_argument("--page", metavar="SLUG", help="one page's backlinks and links")
    p.add_argument("--check", action="store_true",
                   help="print only the problems; exit 1 when there are any")
    p.add_argument("--nodes", action="store_true",
                   help="every page and link too (with --json: what draws the graph)")
    _json(p)


def _add_aliases(sub: argparse._SubParsersAction, help_: str) -> None:
    p = _parser(sub, "kb-aliases", help_,
                "  solograph kb-aliases\n  solograph kb-aliases --suggest\n"
                "  solograph kb-aliases --suggest --json")
    p.add_argument("--suggest", action="store_true",
                   help="groups the KB already knows (frontmatter aliases, parallel pages, "
                        "translated catalog lines) that the table lacks")
    _json(p)


def _add_hint(sub: argparse._SubParsersAction, help_: str) -> None:
    p = _parser(sub, "kb-hint", help_,
                '  solograph kb-hint "how do we sandbox agents on macOS" --session 7233bf08\n'
                "  solograph kb-hint --hook --kb-path ~/notes   # hook JSON on stdin")
    p.add_argument("prompt", nargs="?", help="the prompt (without --hook)")
    p.add_argument("--session", help="name each page once in this session")
    p.add_argument("--hook", action="store_true",
                   help="read Claude Code's UserPromptSubmit JSON on stdin, answer in kind")
    p.add_argument("--kb-path", help="the KB folder (default KB_PATH, else this folder)")
    _json(p)


def _add_index(sub: argparse._SubParsersAction, help_: str) -> None:
    p = _parser(sub, "index-kb", help_,
                "  solograph index-kb\n  KB_PATH=~/notes solograph index-kb --json")
    _json(p)


def _add_hook(sub: argparse._SubParsersAction, help_: str) -> None:
    p = _parser(sub, "hook", help_,
                "  solograph hook --kb-path ~/notes\n"
                "  solograph hook --kb-path ~/notes --db-path ~/.solo-work/portfolio.db")
    p.add_argument("--kb-path", help="the KB folder (default KB_PATH)")
    p.add_argument("--db-path", help="the portfolio store for the project map "
                                     "(default SOLOGRAPH_HOME/portfolio.db)")


def _add_memgate(sub: argparse._SubParsersAction, help_: str) -> None:
    p = _parser(sub, "memgate", help_,
                "  solograph memgate train labelled.jsonl            # into kb.memory_gate\n"
                "  solograph memgate train labelled.jsonl --out gate.json")
    p.add_argument("action", choices=("train",))
    p.add_argument("labelled", type=Path,
                   help='JSONL, one {"prompt": "...", "label": 1 or 0} a line')
    p.add_argument("--out", type=Path, help="weights file (default: the KB's memory_gate)")
    p.add_argument("--holdout", type=float, default=0.2, help="share held out (default 0.2)")
    _json(p)


def _add_compact(sub: argparse._SubParsersAction, help_: str) -> None:
    p = _parser(sub, "compact", help_,
                "  solograph compact                      # 3-inbox/ (or `kb: inbox:`)\n"
                "  solograph compact --min-chars 500 --days 3\n"
                "  solograph compact --dir notes/inbox --all --json")
    p.add_argument("--dir", dest="folder", help="the inbox folder (default `kb: inbox:`, "
                                                 "else 3-inbox/)")
    p.add_argument("--min-chars", type=int, default=2000,
                   help="longer than this many characters (default 2000)")
    p.add_argument("--days", type=int, default=7, help="older than this many days (default 7)")
    p.add_argument("--all", dest="include_all", action="store_true",
                   help="every note of the inbox, each with why it is not ready")
    _json(p)


ADD = {"kb": _add_kb, "kb-graph": _add_graph, "kb-aliases": _add_aliases, "kb-hint": _add_hint,
       "index-kb": _add_index, "hook": _add_hook, "memgate": _add_memgate,
       "compact": _add_compact}


def run(settings: Settings, args: argparse.Namespace) -> int:
    return RUN[args.command](settings, args)


def _settings(settings: Settings) -> Settings:
    """The CLI's KB: KB_PATH, else the current folder, which it says (on stderr: --json stays
    the answer alone)."""
    if settings.kb_path:
        return settings
    try:
        here = Path.cwd()
    except FileNotFoundError:  # cron in a folder that was removed
        raise ConfigError("KB_PATH is not set and the current folder no longer exists",
                          hint="set KB_PATH to the folder of your notes") from None
    print(f"note: KB_PATH is not set; using the current folder {here} as the knowledge base",
          file=sys.stderr)
    return settings.with_(kb_path=here)


def _kb(settings: Settings, args: argparse.Namespace) -> int:
    words = args.query
    if words == ["get"]:
        raise BadQuery("`kb get` needs the page to read",
                       hint="solograph kb get wiki/x.md (or wiki/x.md#Heading); to search for "
                            "the word, add another: solograph kb \"get started\"")
    settings = _settings(settings)
    if words[0] == "get" and len(words) == 2:
        return emit(args, reads.kb_get(settings, words[1]), _render_page)
    answer = reads.kb_search(settings, " ".join(words), path=args.path, pages=args.pages,
                             expand=args.expand, limit=args.limit)
    emit(args, answer, _render_search)
    from solograph_services.cli.embedding import after_read

    after_read(settings, args, answer, "kb")
    return 0


def _render_search(a: dict) -> None:
    if not a["results"]:
        print(f"nothing in the knowledge base matches {a['query']!r}")
    for i, r in enumerate(a["results"], 1):
        where = f"{r['path']}:{r['line']}"
        print(f"{i}. {r['title']}  ({where}{'' if r['wiki'] else ', outside the wiki'})")
        if r["section"]:
            print(f"   § {r['section']}")
        if r["snippet"]:
            print(f"   {r['snippet']}")
    for e in a.get("expanded", []):
        print(f"+  {e['title']}  ({e['path']}; linked from {', '.join(e['linked_from'])})")
    notes = [f"{k} → {v}" for k, v in {**a["respelled"], **a["aliases"]}.items()]
    if notes:
        print("also searched: " + ", ".join(notes))


def _render_page(a: dict) -> None:
    print(f"{a['title']}  ({a['path']}{' § ' + a['section'] if a['section'] else ''})")
    if a["problem"]:
        print(f"  problem: {a['problem']}")
    print()
    print(a["text"])
    if a["backlinks"]:
        print("\nlinked from: " + ", ".join(dict.fromkeys(b["from"] for b in a["backlinks"])))


def _graph(settings: Settings, args: argparse.Namespace) -> int:
    answer = reads.kb_graph(_settings(settings), path=args.path, page=args.page,
                            check=args.check, nodes=args.nodes)
    code = 1 if args.check and not args.page and answer["problems"] else 0
    emit(args, answer, _render_graph)
    return code


def _render_graph(a: dict) -> None:
    if "page" in a:
        print(f"{a['title']}  ({a['page']})")
        print(f"linked from ({len(a['backlinks'])}):")
        for b in a["backlinks"]:
            print(f"  {b['from']}:{b['line']}  {b['context'][:100]}")
        print(f"links ({len(a['links'])}):")
        for x in a["links"]:
            print(f"  :{x['line']}  {x['target']} → {x['path'] or 'BROKEN'}")
        return
    if "hubs" in a:
        print(f"{a['scope']}: {plural(a['pages'], 'page')}, {plural(a['links'], 'link')} "
              f"({a['edges']} between pages)")
        print("hubs: " + ", ".join(f"{h['path']} ({h['inbound']})" for h in a["hubs"]))
        print("connectors: " + ", ".join(c["path"] for c in a["connectors"]))
    for b in a["broken"]:
        print(f"broken link: {b['from']}:{b['line']}  [[{b['target']}]]  ({b['reason']})")
    for p in a["orphans"]:
        print(f"orphan: {p}  (no other page links to it)")
    for p in a["missing_from_index"]:
        print(f"missing from index.md: {p}")
    for f in a["frontmatter"]:
        print(f"frontmatter: {f['path']}: {f['problem']}")
    print(plural(a["problems"], "problem") if a["problems"] else "no problems")


def _aliases(settings: Settings, args: argparse.Namespace) -> int:
    answer = reads.kb_aliases(_settings(settings), suggest=args.suggest)

    def render(a: dict) -> None:
        if "suggested" in a:
            print(f"# {plural(len(a['suggested']), 'group')} to review for {a['file']} "
                  f"({a['groups']} there now); the last member is what the others search")
            for s in a["suggested"]:
                print(f"# {s['why']}")
                print(f"- [{', '.join(s['group'])}]")
        else:
            print(f"{a['file']}: {plural(a['groups'], 'group')}")
            for g in a["table"]:
                print(f"- [{', '.join(g)}]")
    return emit(args, answer, render)


def _hint(settings: Settings, args: argparse.Namespace) -> int:
    if args.hook:
        from solograph_services.hook.main import main as hook_main

        argv = ["--kb-path", args.kb_path] if args.kb_path else []
        return hook_main(argv, hint_only=True)
    if not args.prompt:
        raise BadQuery("no prompt given", hint='solograph kb-hint "prompt" --session ID')
    if args.kb_path:
        settings = settings.with_(kb_path=Path(args.kb_path).expanduser())
    answer = reads.kb_hint(_settings(settings), args.prompt, session=args.session)
    return emit(args, answer, lambda a: print("\n".join(x for x in (a["hint"], a["stack"])
                                                        if x)) if a["hint"] or a["stack"]
                 else None)


def _index(settings: Settings, args: argparse.Namespace) -> int:
    from solograph.kb.sync import index_kb
    from solograph_services.cli.embedding import embed_after

    chosen = _settings(settings)
    return emit(args, embed_after(chosen, args, index_kb(chosen), "kb"), summary)


def _hook(settings: Settings, args: argparse.Namespace) -> int:
    from solograph_services.hook.main import main as hook_main

    argv = []
    for flag, value in (("--kb-path", args.kb_path), ("--db-path", args.db_path)):
        if value:
            argv += [flag, value]
    return hook_main(argv)


def _memgate(settings: Settings, args: argparse.Namespace) -> int:
    from solograph.kb import memgate

    out = args.out
    if out is None:
        from solograph.kb.layout import load_layout

        root = _settings(settings).kb_path
        layout = load_layout(root)
        if not layout.memory_gate:
            raise ConfigError("no file to write: give --out, or set `kb: memory_gate:` in the "
                              "KB's .solograph.yaml")
        out = root / layout.memory_gate
    try:
        rows = memgate.read_labelled(args.labelled)
        gate, report = memgate.train(rows, holdout=args.holdout)
    except (OSError, ValueError) as exc:
        raise BadQuery(str(exc), hint='one {"prompt": "...", "label": 1} a line') from None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(gate.to_json(), encoding="utf-8")
    report["out"] = str(out)
    report["features"] = len(gate.weights)
    return emit(args, report, lambda a: print(
        f"AUC on the held-out {a['held_out']} of {a['prompts']} prompts: {a['auc_held_out']}; "
        f"threshold {a['threshold']}; {a['features']} features written to {a['out']}"))


def _compact(settings: Settings, args: argparse.Namespace) -> int:
    answer = reads.read("kb_compact", _settings(settings), folder=args.folder,
                        min_chars=args.min_chars, days=args.days,
                        include_all=args.include_all)

    def render(a: dict) -> None:
        for d in a["documents"]:
            state = "ready" if d["ready"] else f"not ready: {d['why']}"
            print(f"{d['path']}  ({d['chars']} characters, {d['age_days']} days; {state})")
        print(a["summary"])
    return emit(args, answer, render)


RUN = {
    "compact": _compact,
    "kb": _kb,
    "kb-graph": _graph,
    "kb-aliases": _aliases,
    "kb-hint": _hint,
    "index-kb": _index,
    "hook": _hook,
    "memgate": _memgate,
}
