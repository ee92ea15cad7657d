"""The KB: search latency over a 500-page KB (the disk check included), the hook as a whole
process, and the memory gate's scoring.

    .venv/bin/python bench/kb_bench.py              # 500 pages, 200 queries, 40 hook runs
    .venv/bin/python bench/kb_bench.py --pages 2000 --json

Figures and targets:
- kb search p50: `reads.kb_search` in-process, as the CLI, API and MCP call it: it opens the
  index, stats every file of the KB (never stale), then ranks; < 15 ms.
- hook p50 / p95: `solograph hook` started as Claude Code starts it (a new process, JSON on
  stdin, until exit), on SessionStart inside a registered project (the project map) and on a
  prompt (the wiki sync and the hint); each run has a new session id, so each answers in full;
  p50 < 80 ms.
- memgate scoring: one prompt scored by a gate trained on 2,000 labelled prompts; < 1 ms.
"""

from __future__ import annotations

import argparse
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
    figures_json,
    figures_table,
    log,
    remove_tree,
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


def zipf_words(rng: random.Random, vocab: list[str], n: int) -> list[str]:
    weights = [1 / (i + 1) ** 1.07 for i in range(len(vocab))]
    return rng.choices(vocab, weights=weights, k=n)


def make_kb(root: Path, pages: int, seed: int) -> list[str]:
    """`pages` markdown files: 80% in wiki/ (frontmatter, headings, [[links]], an index.md),
    the rest notes outside it, a fifth of them Russian. Returns the wiki slugs."""
    rng = random.Random(seed)
    vocab = EN + [f"{a}{b}" for a in EN[:30] for b in ("ing", "er", "ed", "ly")]
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
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("class Billing:\n    def charge(self):\n"
                                         "        return 1\n", encoding="utf-8")
    (repo / "pyproject.toml").write_text('[project]\nname = "bench-app"\ndependencies = '
                                         '["fastapi", "celery"]\n', encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def hook_runs(cmd: list[str], payloads: list[dict], env: dict) -> tuple[list[float], int]:
    times, answered = [], 0
    for payload in payloads:
        data = json.dumps(payload).encode()
        started = time.perf_counter()
        done = subprocess.run(cmd, input=data, capture_output=True, env=env, timeout=10)
        times.append((time.perf_counter() - started) * 1000)
        answered += bool(done.stdout.strip())
    return times, answered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--hooks", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from solograph import reads
    from solograph.config import Settings
    from solograph.kb import memgate
    from solograph.kb.sync import index_kb
    from solograph.portfolio.sync import refresh_registry, scan_portfolio

    base = work_dir(f"kb-{args.pages}p-{args.seed}")
    remove_tree(base)
    base.mkdir(parents=True)
    kb_root = base / "kb"
    slugs = make_kb(kb_root, args.pages, args.seed)
    home = base / "home"
    settings = Settings(home=home, kb_path=kb_root, scan_paths=(base / "projects",))
    started = time.perf_counter()
    report = index_kb(settings)
    full_index_s = time.perf_counter() - started
    log(f"kb: {report['summary']}")

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
    for q in queries[:20]:
        reads.kb_search(settings, q)
    search_ms, cpu_ms = [], []
    for q in queries:
        t0, c0 = time.perf_counter(), time.thread_time()
        reads.kb_search(settings, q)
        search_ms.append((time.perf_counter() - t0) * 1000)
        cpu_ms.append((time.thread_time() - c0) * 1000)
    search = summarize(search_ms)

    repo = make_project(base)
    refresh_registry(settings)
    scan_portfolio(settings)
    exe = Path(sys.executable).parent / "solograph"
    cmd = [str(exe), "hook", "--kb-path", str(kb_root)]
    env = {**os.environ, "SOLOGRAPH_HOME": str(home)}
    starts = [{"session_id": f"s{i}", "cwd": str(repo), "hook_event_name": "SessionStart",
               "source": "startup"} for i in range(args.hooks)]
    rare = [s.rsplit("-", 1)[0] for s in slugs if s.endswith("-guide")]
    prompts = [{"session_id": f"p{i}", "cwd": "/tmp", "hook_event_name": "UserPromptSubmit",
                "prompt": f"how does the {rare[i % len(rare)]} setup work?"}
               for i in range(args.hooks)]
    warm = [{**p, "session_id": f"w{i}"} for i, p in enumerate(starts[:3])]
    hook_runs(cmd, warm, env)  # warm the page cache and the index
    start_ms, start_answered = hook_runs(cmd, starts, env)
    prompt_ms, prompt_answered = hook_runs(cmd, prompts, env)
    bare_ms, _ = hook_runs([sys.executable, "-c", "pass"], starts[:20], env)
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

    figures = [
        Figure("KB documents / pages in the wiki", f"{report['docs']} / {report['pages']}"),
        Figure("full index (first run)", full_index_s, "s", key="index_s"),
        Figure("kb search p50 (with the disk check)", search["p50"], "ms", "< 15 ms",
               search["p50"] < 15, key="search_p50_ms"),
        Figure("kb search p95", search["p95"], "ms", key="search_p95_ms"),
        Figure("kb search p50, CPU", summarize(cpu_ms)["p50"], "ms", key="search_cpu_p50_ms"),
        Figure("hook SessionStart p50 (whole process)", start_s["p50"], "ms", "< 80 ms",
               start_s["p50"] < 80, key="hook_start_p50_ms"),
        Figure("hook SessionStart p95", start_s["p95"], "ms", key="hook_start_p95_ms"),
        Figure("hook SessionStart runs that gave the map", f"{start_answered}/{len(starts)}"),
        Figure("hook prompt p50 (whole process)", prompt_s["p50"], "ms", "< 80 ms",
               prompt_s["p50"] < 80, key="hook_prompt_p50_ms"),
        Figure("hook prompt p95", prompt_s["p95"], "ms", key="hook_prompt_p95_ms"),
        Figure("hook prompt runs that named a page", f"{prompt_answered}/{len(prompts)}"),
        Figure("bare `python -c pass` p50 (for scale)", summarize(bare_ms)["p50"], "ms",
               key="python_start_p50_ms"),
        Figure("memgate scoring per prompt", gate_us, "µs", "< 1000 µs", gate_us < 1000,
               key="memgate_us"),
        Figure("memgate held-out AUC (synthetic prompts)", trained["auc_held_out"]),
    ]
    load = os.getloadavg()
    if args.json:
        print(figures_json(figures, params=vars(args), cpus=os.cpu_count(), load=load))
    else:
        print(f"cpus {os.cpu_count()}, load average {load[0]:.2f}")
        print(figures_table(figures))
    return 0 if all(f.ok for f in figures if f.ok is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
