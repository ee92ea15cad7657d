"""The KB: search latency over a 500-page KB (the disk check included), the hook as a whole
process, and the memory gate's scoring.

    .venv/bin/python bench/kb_bench.py              # 500 pages, 200 queries, 40 hook runs
    .venv/bin/python bench/kb_bench.py --scale 10   # and 5,000 pages, side by side
    .venv/bin/python bench/kb_bench.py --pages 2000 --json
    .venv/bin/python bench/kb_bench.py --scale 10 --vocab tiny   # 168 words: all common

Figures and targets:
- kb search p50: `reads.kb_search` in-process, as the API and MCP call it (the thread's
  writer kept between reads, `readers.keep()`): each read stats the KB's folders and the pages
  changed last (the disk check, kb/check.py), syncs what moved, then ranks; < 15 ms. Beside
  it, a writer opened and closed per read, as the CLI reads (whose process start costs more).
- kb search p50 after 10 pages changed: the same read right after a line was added to (or
  taken off again from) 10 wiki pages, kept writer and a writer per read: the index half
  synced, as a user meets it between edits.
- hook p50 / p95: `solograph hook` started as Claude Code starts it (a new process, JSON on
  stdin, until exit), on SessionStart inside a registered project (the project map) and on a
  prompt (the wiki sync and the hint); each run has a new session id, so each answers in full;
  p50 < 80 ms.
- memgate scoring: one prompt scored by a gate trained on 2,000 labelled prompts; < 1 ms.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from common import (  # noqa: E402
    Figure,
    add_scale_arg,
    kept_then_opened,
    log,
    reads_peak_rss_mb,
    remove_tree,
    scaled_json,
    scaled_table,
    summarize,
    work_dir,
)

EN = [
    "agent", "sandbox", "privacy", "recipe", "index", "search", "memory", "session", "hook",
    "wiki", "link", "graph", "alias", "vector", "token", "cache", "deploy", "release",
    "migration", "schema", "invoice", "ledger", "payment", "webhook", "retry", "queue",
    "worker", "lock", "scan", "project", "stack", "swift", "python", "rust", "kotlin",
    "react", "server", "client", "model", "prompt", "context", "budget", "latency", "storage",
    "backup", "sync", "encryption", "device"
]
RU = [
    "песочница", "агент", "приватность", "рецепт", "индекс", "поиск", "память", "сессия",
    "хук", "вики", "ссылка", "граф", "кэш", "деплой", "релиз", "миграция", "схема", "счёт",
    "платёж", "очередь", "воркер", "проект", "стек", "модель", "контекст", "задержка",
    "хранение", "синхронизация", "шифрование", "устройство"
]


GENERATOR_VERSION = 1  # bump when make_kb changes: a cached KB of another version is made again
VOCAB_WORDS = 20_000  # the zipf vocabulary's size


def zipf_words(rng: random.Random, vocab: list[str], n: int) -> list[str]:
    cum = _cumulative(len(vocab))
    return rng.choices(vocab, cum_weights=cum, k=n)


_CUM: dict[int, list[float]] = {}


def _cumulative(n: int) -> list[float]:
    if n not in _CUM:
        total, out = 0.0, []
        for i in range(n):
            total += 1 / (i + 1) ** 1.07
            out.append(total)
        _CUM[n] = out
    return _CUM[n]


def vocabulary(kind: str, seed: int) -> list[str]:
    """The words of the pages, most frequent first. `tiny`: the 48 topic words and 120 words
    made from them (168: every word is in a large share of the sections, the worst case for
    a ranking that scores every match). `zipf`: VOCAB_WORDS words, made-up ones around the
    topic words, which sit at ranks from 10 to about 4,000, so that queries name words both
    common and rare, as in a real KB."""
    if kind == "tiny":
        return EN + [f"{a}{b}" for a in EN[:30] for b in ("ing", "er", "ed", "ly")]
    rng = random.Random(seed * 7919 + 1)
    made: set[str] = set(EN)
    words: list[str] = []
    while len(words) < VOCAB_WORDS - len(EN):
        w = "".join(rng.choice("bcdfghjklmnprstvwz") + rng.choice("aeiou")
                    for _ in range(rng.randint(2, 4))) + rng.choice(["", "n", "r", "s", "t"])
        if w not in made:
            made.add(w)
            words.append(w)
    for i, w in enumerate(EN):  # log-spaced ranks: 10, 12, ... about 4,000
        words.insert(int(10 * 400 ** (i / (len(EN) - 1))) + i, w)
    return words


def make_kb(root: Path, pages: int, seed: int, vocab_kind: str = "tiny") -> list[str]:
    """`pages` markdown files: 80% in wiki/ (frontmatter, headings, [[links]], an index.md),
    the rest notes outside it, a fifth of them Russian. Returns the wiki slugs."""
    rng = random.Random(seed)
    vocab = vocabulary(vocab_kind, seed)
    wiki_n = int(pages * 0.8)
    slugs = [f"{w}-{i}" for i, w in enumerate(zipf_words(rng, EN, wiki_n))]
    (root / "wiki").mkdir(parents=True)
    (root / "notes").mkdir()
    lines = []
    for slug in slugs:
        title = slug.replace("-", " ").title()
        body = []
        for _h in range(rng.randint(2, 6)):
            body.append(f"## {' '.join(zipf_words(rng, vocab, 3)).title()}\n")
            for _ in range(rng.randint(1, 4)):
                words = zipf_words(rng, vocab, rng.randint(30, 120))
                for _ in range(rng.randint(0, 3)):
                    words.insert(rng.randrange(len(words)), f"[[{rng.choice(slugs)}]]")
                body.append(" ".join(words) + "\n")
        summary = " ".join(zipf_words(rng, vocab, 8))
        (root / "wiki" / f"{slug}.md").write_text(
            f"---\ntitle: {title}\ndescription: {summary}\ntags: [{rng.choice(EN)}]\n---\n"
            f"# {title}\n\n" + "\n".join(body), encoding="utf-8")
        lines.append(f"- [[{slug}|{title}]] — {summary}")
    for i in range(20):  # pages named by a word rare in the wiki, which prompts will name
        word = "".join(rng.choice("bcdfgklmnprstvz") + rng.choice("aeiou") for _ in range(4))
        slug = f"{word}-guide"
        slugs.append(slug)
        (root / "wiki" / f"{slug}.md").write_text(
            f"# {word.title()} guide\n\nHow the {word} setup works with the {EN[i]} and the "
            f"{EN[i + 1]}.\n", encoding="utf-8")
        lines.append(f"- [[{slug}]] — the {word} setup")
    (root / "wiki" / "index.md").write_text("# Index\n\n" + "\n".join(lines) + "\n",
                                            encoding="utf-8")
    (root / "wiki" / "_aliases.yaml").write_text(
        "".join(f"- [{r}, {e}]\n" for r, e in zip(RU, EN, strict=False)), encoding="utf-8")
    for i in range(pages - wiki_n):
        lang = RU if i % 5 == 0 else vocab
        text = "\n\n".join(" ".join(zipf_words(rng, lang, rng.randint(40, 150)))
                           for _ in range(rng.randint(2, 8)))
        (root / "notes" / f"note-{i}.md").write_text(f"# Note {i}\n\n{text}\n",
                                                     encoding="utf-8")
    return slugs


def make_project(base: Path) -> Path:
    repo = base / "projects" / "bench-app"
    if (repo / ".git").is_dir():
        return repo
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("class Billing:\n    def charge(self):\n"
                                         "        return 1\n", encoding="utf-8")
    (repo / "pyproject.toml").write_text('[project]\nname = "bench-app"\ndependencies = '
                                         '["fastapi", "celery"]\n', encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def hook_runs(cmd: list[str], payloads: list[dict], env: dict
              ) -> tuple[list[float], list[float], int]:
    """Wall and CPU (user + system of the child) of each run, ms, and how many answered."""
    times, cpu, answered = [], [], 0
    for payload in payloads:
        data = json.dumps(payload).encode()
        before = os.times()
        started = time.perf_counter()
        done = subprocess.run(cmd, input=data, capture_output=True, env=env, timeout=10)
        times.append((time.perf_counter() - started) * 1000)
        after = os.times()
        cpu.append(((after.children_user - before.children_user)
                    + (after.children_system - before.children_system)) * 1000)
        answered += bool(done.stdout.strip())
    return times, cpu, answered


def hook_after_a_new_page(cmd: list[str], prompts: list[dict], env: dict, kb_root: Path,
                          slugs: list[str], rng: random.Random) -> list[float]:
    """The hook on a prompt right after a new note was written into the wiki (it reads and
    indexes the note first: its links, the secrets rules), wall ms; the note is removed and
    synced away after each run."""
    times = []
    for i, prompt in enumerate(prompts):
        source = kb_root / "wiki" / f"{rng.choice(slugs)}.md"
        note = source.with_name(f"new-note-{i}.md")
        note.write_text(source.read_text(encoding="utf-8") + "\nA note written just now.\n",
                        encoding="utf-8")
        try:
            times += hook_runs(cmd, [{**prompt, "session_id": f"{prompt['session_id']}-new"}],
                               env)[0]
        finally:
            note.unlink()
        hook_runs(cmd, [{**prompt, "session_id": f"{prompt['session_id']}-gone"}], env)
    return times


# A child's ru_maxrss counts what it shared with the process that forked it, so the hook is
# started from a small Python that reports its children's peak, not from this bench.
_PEAK = ("import resource, subprocess, sys\n"
         "subprocess.run(sys.argv[1:], input=sys.stdin.buffer.read(), capture_output=True)\n"
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def hook_peak_rss(cmd: list[str], payloads: list[dict], env: dict) -> float:
    """The largest peak resident set of the hook over `payloads`, MB."""
    peaks = [int(subprocess.run([sys.executable, "-c", _PEAK, *cmd],
                                input=json.dumps(p).encode(), capture_output=True, env=env,
                                timeout=30).stdout or 0) / 1024 for p in payloads]
    return max(peaks, default=0.0)


def prepared(pages: int, seed: int, vocab: str = "tiny") -> tuple[Path, list[str], dict]:
    """The generated KB of `pages` and its index, made once and reused: generating and the
    first index run are not what the searches measure (delete bench/.work/ to start over)."""
    from solograph.config import Settings
    from solograph.kb.sync import index_kb

    named = "" if vocab == "tiny" else f"-{vocab}"
    base = work_dir(f"kb-{pages}p-{seed}{named}-v{GENERATOR_VERSION}")
    done = base / "prepared.json"
    if done.exists():
        info = json.loads(done.read_text(encoding="utf-8"))
        log(f"reusing the KB of {pages} pages under {base}")
        # A no-change sync, which also makes what an index made by an older version lacks
        # (the word lists of a store migrated since).
        index_kb(Settings(home=base / "home", kb_path=base / "kb"))
        return base, info["slugs"], info
    remove_tree(base)
    base.mkdir(parents=True)
    log(f"generating a KB of {pages} pages under {base} ...")
    slugs = make_kb(base / "kb", pages, seed, vocab)
    settings = Settings(home=base / "home", kb_path=base / "kb")
    started = time.perf_counter()
    report = index_kb(settings)
    info = {"slugs": slugs, "index_s": time.perf_counter() - started,
            "summary": report["summary"], "docs": report["docs"], "pages": report["pages"]}
    done.write_text(json.dumps(info), encoding="utf-8")  # written last: complete
    return base, slugs, info


EDITED = 10  # pages changed before each search of `after_edits`


def after_edits(settings, kb_root: Path, slugs: list[str], queries: list[str],
                rng: random.Random, rounds: int = 10) -> dict:
    """A search right after EDITED pages changed (a line added to each, or taken off again:
    the KB is left as it was), as a user meets the index between edits: the read syncs them
    first. Wall ms of each, summarized."""
    from solograph import reads

    times = []
    for i in range(rounds):
        paths = [kb_root / "wiki" / f"{slug}.md" for slug in rng.sample(slugs, EDITED)]
        originals = {p: p.read_text(encoding="utf-8") for p in paths}
        for step in ("edit", "restore"):
            for path, text in originals.items():
                path.write_text(text + "\nA line added between two searches.\n"
                                if step == "edit" else text, encoding="utf-8")
            t0 = time.perf_counter()
            reads.kb_search(settings, queries[i % len(queries)])
            times.append((time.perf_counter() - t0) * 1000)
    return summarize(times)


def measure(args: argparse.Namespace, pages: int) -> list[Figure]:
    from solograph import reads
    from solograph.config import Settings
    from solograph.kb import memgate
    from solograph.kb.store import open_kb
    from solograph.kb.sync import sync_for_read
    from solograph.portfolio.sync import refresh_registry, scan_portfolio

    base, slugs, info = prepared(pages, args.seed, args.vocab)
    kb_root, home = base / "kb", base / "home"
    settings = Settings(home=home, kb_path=kb_root, scan_paths=(base / "projects",))
    log(f"kb: {info['summary']}")

    rng = random.Random(args.seed)
    queries = []
    for _ in range(args.queries):
        kind = rng.random()
        if kind < 0.5:
            queries.append(" ".join(rng.sample(EN, rng.randint(2, 3))))
        elif kind < 0.8:
            queries.append(rng.choice(slugs).rsplit("-", 1)[0] + " " + rng.choice(EN))
        else:
            queries.append(" ".join(rng.sample(RU, 2)))
    from solograph.errors import QueryTimeout

    def searches() -> tuple[dict, dict, int]:
        """Wall and CPU of each search (after 20 to warm up), and how many timed out."""
        for q in queries[:20]:
            with contextlib.suppress(QueryTimeout):
                reads.kb_search(settings, q)
        wall, cpu, late = [], [], 0
        for q in queries:
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                reads.kb_search(settings, q)
            except QueryTimeout:  # counted, and its time kept: a timeout is an answer too late
                late += 1
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
        return summarize(wall), summarize(cpu), late

    (search, search_cpu, timeouts), (opened, opened_cpu, opened_late) = \
        kept_then_opened(searches)
    timeouts += opened_late
    edited = kept_then_opened(lambda: after_edits(settings, kb_root, slugs, queries,
                                                  random.Random(args.seed + 1)))
    read_rss = reads_peak_rss_mb("kb_search", home, [(q, {}) for q in queries], kb=kb_root)
    check_ms = []
    kb = open_kb(home, kb_root, settings=settings)
    try:
        for _ in range(50):
            c0 = time.thread_time()
            sync_for_read(kb, time.monotonic() + 1)
            check_ms.append((time.thread_time() - c0) * 1000)
    finally:
        kb.close()

    repo = make_project(base)
    refresh_registry(settings)
    scan_portfolio(settings)
    exe = Path(sys.executable).parent / "solograph"
    cmd = [str(exe), "hook", "--kb-path", str(kb_root)]
    # Bytecode cached, as an installed package has it: with PYTHONDONTWRITEBYTECODE set (as
    # on the machines this ran on) each run compiled the modules changed since the last
    # bytecode was written, ~40 ms a hook. The warm-up runs write it, under bench/.work.
    env = {**os.environ, "SOLOGRAPH_HOME": str(home),
           "PYTHONPYCACHEPREFIX": str(work_dir("pycache"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    stamp = time.time_ns()  # each run of the bench names new sessions: each answers in full
    starts = [{"session_id": f"s{stamp}-{i}", "cwd": str(repo),
               "hook_event_name": "SessionStart", "source": "startup"}
              for i in range(args.hooks)]
    rare = [s.rsplit("-", 1)[0] for s in slugs if s.endswith("-guide")]
    prompts = [{"session_id": f"p{stamp}-{i}", "cwd": "/tmp",
                "hook_event_name": "UserPromptSubmit",
                "prompt": f"how does the {rare[i % len(rare)]} setup work?"}
               for i in range(args.hooks)]
    warm = [{**p, "session_id": f"w{stamp}-{i}"} for i, p in enumerate(starts[:3])]
    hook_runs(cmd, warm, env)  # warm the page cache and the index
    start_ms, _start_cpu, start_answered = hook_runs(cmd, starts, env)
    prompt_ms, prompt_cpu, prompt_answered = hook_runs(cmd, prompts, env)
    added_ms = hook_after_a_new_page(cmd, prompts, env, kb_root, slugs, rng)
    hook_rss = hook_peak_rss(cmd, prompts[:3], env)
    bare_ms, _, _ = hook_runs([sys.executable, "-c", "pass"], starts[:20], env)
    start_s, prompt_s = summarize(start_ms), summarize(prompt_ms)

    labelled = [(f"как мы делали {rng.choice(RU)} в прошлый раз", 1) for _ in range(1000)]
    labelled += [(f"write a {rng.choice(EN)} {rng.choice(EN)} function", 0) for _ in range(1000)]
    gate, trained = memgate.train(labelled)
    sample = [t for t, _ in labelled[::10]]
    t0 = time.perf_counter()
    for _ in range(5):
        for text in sample:
            gate.score(text)
    gate_us = (time.perf_counter() - t0) / (5 * len(sample)) * 1e6

    return [
        Figure("KB documents / pages in the wiki", f"{info['docs']} / {info['pages']}"),
        Figure("full index (first run)", info["index_s"], "s", key="index_s"),
        Figure("kb search p50 (with the disk check), kept writer", search["p50"], "ms",
               "<= 15 ms", search["p50"] <= 15, key="search_p50_ms"),
        Figure("kb search p95, kept writer", search["p95"], "ms", key="search_p95_ms"),
        Figure("kb search p50, CPU, kept writer", search_cpu["p50"], "ms",
               key="search_cpu_p50_ms"),
        Figure("kb search p50, a writer opened per read (the CLI)", opened["p50"], "ms",
               key="search_opened_p50_ms"),
        Figure("kb search p50, CPU, a writer opened per read", opened_cpu["p50"], "ms",
               key="search_opened_cpu_p50_ms"),
        Figure(f"kb search p50 after {EDITED} pages changed, kept writer / per read",
               f"{edited[0]['p50']:.1f} / {edited[1]['p50']:.1f}", "ms",
               key="search_after_edits_p50_ms",
               extra={"kept": edited[0]["p50"], "opened": edited[1]["p50"]}),
        Figure("kb searches past the query time limit", timeouts, "", "0", timeouts == 0,
               key="search_timeouts"),
        Figure("disk check alone p50, CPU", summarize(check_ms)["p50"], "ms",
               key="check_cpu_p50_ms"),
        Figure("peak RSS of a process making these searches", read_rss, "MB", "< 300 MB",
               read_rss < 300, key="search_peak_rss_mb"),
        Figure("hook SessionStart p50 (whole process)", start_s["p50"], "ms", "<= 80 ms",
               start_s["p50"] <= 80, key="hook_start_p50_ms"),
        Figure("hook SessionStart p95", start_s["p95"], "ms", key="hook_start_p95_ms"),
        Figure("hook SessionStart runs that gave the map", f"{start_answered}/{len(starts)}"),
        Figure("hook prompt p50 (whole process)", prompt_s["p50"], "ms", "<= 80 ms",
               prompt_s["p50"] <= 80, key="hook_prompt_p50_ms"),
        Figure("hook prompt p95", prompt_s["p95"], "ms", key="hook_prompt_p95_ms"),
        Figure("hook prompt p50, CPU (the child's)", summarize(prompt_cpu)["p50"], "ms",
               key="hook_prompt_cpu_p50_ms"),
        Figure("hook prompt runs that named a page", f"{prompt_answered}/{len(prompts)}"),
        Figure("hook prompt p50 right after a note was added", summarize(added_ms)["p50"], "ms",
               key="hook_prompt_after_new_page_p50_ms"),
        Figure("hook peak RSS (largest run)", hook_rss, "MB", "< 300 MB", hook_rss < 300,
               key="hook_peak_rss_mb"),
        Figure("bare `python -c pass` p50 (for scale)", summarize(bare_ms)["p50"], "ms",
               key="python_start_p50_ms"),
        Figure("memgate scoring per prompt", gate_us, "µs", "< 1000 µs", gate_us < 1000,
               key="memgate_us"),
        Figure("memgate held-out AUC (synthetic prompts)", trained["auc_held_out"]),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--hooks", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--vocab", choices=("zipf", "tiny"), default="zipf",
                        help="the pages' words: 20,000 Zipf-distributed (zipf, the default) or "
                             "168 (tiny: every word common, the worst case)")
    add_scale_arg(parser)
    args = parser.parse_args(argv)

    sizes = list(dict.fromkeys([args.pages, args.pages * max(1, args.scale)]))
    columns = [(f"{n:,} pages", measure(args, n)) for n in sizes]
    load = os.getloadavg()
    if args.json:
        print(scaled_json(columns, params=vars(args), cpus=os.cpu_count(), load=load))
    else:
        print(f"cpus {os.cpu_count()}, load average {load[0]:.2f}, vocabulary {args.vocab}")
        print(scaled_table(columns))
    return 0 if all(f.ok for _, figs in columns for f in figs if f.ok is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
