"""The page for people: what the start page, a search over every index and the first screen of
the largest session cost, served by the real `solograph ui` (uvicorn) on loopback.

The memory is the browser tests' (a portfolio, a KB, sources, a few sessions) plus one session
of `--messages` messages (10,000 by default). Each page is fetched `--rounds` times over one
keep-alive connection; the figure is the median time from request to last byte (on loopback
that is the server's time) and the page's size in bytes.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import Figure, figures_json, figures_table, log, remove_tree, work_dir  # noqa: E402
from solograph import reads  # noqa: E402
from tests.support.procs import free_port, process, solograph_cmd, wait_for_http  # noqa: E402
from tests.support.transcripts import Transcripts  # noqa: E402
from tests.support.web import build_memory  # noqa: E402

BIG_ID = "b1600000-0000-4000-8000-000000000000"


def fetch(conn: http.client.HTTPConnection, path: str) -> tuple[float, int]:
    started = time.perf_counter()
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - started
    assert response.status == 200, (path, response.status, body[:300])
    return elapsed * 1000, len(body)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    base = work_dir("web")
    remove_tree(base)
    base.mkdir(parents=True)
    log("building the memory")
    settings = build_memory(base)
    big = Transcripts(settings.claude_projects).session("/home/dev/code/big", BIG_ID)
    for i in range(args.messages // 2):
        big.prompt(f"step {i}: carry on with the data migration of table {i % 97}")
        big.reply(f"Step {i} done; {i % 13} rows moved.",
                  tools=[("Bash", {"command": f"psql -c 'select {i}'"})] if i % 5 == 0 else [])
    big.flush()
    reads.session_list(settings)  # sync the big session before measuring
    port = free_port()
    env = {"SOLOGRAPH_HOME": str(settings.home), "KB_PATH": str(settings.kb_path),
           "CLAUDE_PROJECTS_PATH": str(settings.claude_projects),
           "CODEGRAPH_SCAN_PATH": ",".join(map(str, settings.scan_paths)),
           # The lexical contract; the meaning lane's cost is semantic_bench.py's to measure.
           "SOLOGRAPH_SEMANTIC": "off"}
    pages = [("start page", "/ui/", 100), ("search, every index", "/ui/search?q=webhook+retry",
                                           150),
             (f"first screen of a {args.messages:,}-message session", f"/ui/session/{BIG_ID}", 100),
             ("same, opened at a match", f"/ui/session/{BIG_ID}?q=table+96+rows", 150)]
    figures = []
    with process(solograph_cmd("ui", "--port", str(port)), env=env, log=base / "ui.log") as proc:
        wait_for_http(f"http://127.0.0.1:{port}/health", proc=proc)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for name, path, target in pages:
            fetch(conn, path)  # warm: the first read opens the index
            runs = [fetch(conn, path) for _ in range(args.rounds)]
            ms = statistics.median(t for t, _ in runs)
            size = runs[-1][1]
            figures.append(Figure(f"{name}: p50", round(ms, 1), "ms", f"< {target} ms",
                                  ms < target, key=path))
            figures.append(Figure(f"{name}: bytes", size, "B", key=path + "#bytes"))
        conn.close()
    print(figures_json(figures, messages=args.messages) if args.json else figures_table(figures))
    return 0 if all(f.ok is not False for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
