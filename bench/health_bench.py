"""What /health costs: the worker-liveness read against Celery's `inspect ping`, the transcripts
folder check by folder size, and GET /health of the real API, each against a Redis PING (the
old /health's only broker call) measured in the same run.

Runs a private redis-server, a real `solograph worker` and a real `solograph api` on loopback
over a generated transcripts folder.
"""

from __future__ import annotations

import argparse
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis  # noqa: E402

from common import Figure, figures_json, figures_table, log, remove_tree, summarize, work_dir  # noqa: E402
from solograph.config import Settings  # noqa: E402
from solograph.sessions.sync import folder_access  # noqa: E402
from solograph_services.common import health as probes  # noqa: E402
from solograph_services.common import liveness  # noqa: E402
from solograph_services.common.jobs import create_celery  # noqa: E402
from tests.support.procs import (  # noqa: E402
    free_port,
    process,
    redis_server,
    solograph_cmd,
    wait_for_http,
)
from tests.support.transcripts import Transcripts  # noqa: E402


def ms(fn, times: int) -> dict[str, float]:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return summarize(samples)


def transcripts(root: Path, files: int) -> Path:
    t = Transcripts(root)
    for i in range(files):
        t.conversation(f"/home/dev/code/app{i % 50}", f"question {i} about the webhook",
                       f"answer {i}")
    return t.root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000, help="transcript files (2000)")
    parser.add_argument("--rounds", type=int, default=200, help="samples per figure (200)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    base = work_dir("health")
    remove_tree(base)
    base.mkdir(parents=True)
    log(f"writing {args.files} transcripts")
    root = transcripts(base / "claude-projects", args.files)
    figures: list[Figure] = []
    with redis_server() as url:
        env = {"SOLOGRAPH_HOME": str(base / "home"), "SOLOGRAPH_REDIS_URL": url,
               "CLAUDE_PROJECTS_PATH": str(root), "CODEGRAPH_SCAN_PATH": str(base / "repos"),
               "KB_PATH": "", "SOLOGRAPH_TOKEN": "", "SOLOGRAPH_HOST": ""}
        settings = Settings(home=base / "home", redis_url=url, claude_projects=root)
        celery = create_celery(settings)
        client = redis.Redis.from_url(url)
        port = free_port()
        with process(solograph_cmd("worker", "-Q", "portfolio,sessions,kb", "-c", "1"), env=env,
                     log=base / "worker.log"), \
                process(solograph_cmd("api", "--port", str(port)), env=env,
                        log=base / "api.log") as api:
            wait_for_http(f"http://127.0.0.1:{port}/health", proc=api, timeout=60)
            deadline = time.monotonic() + 60
            while not liveness.alive(client, timeout=60) and time.monotonic() < deadline:
                time.sleep(0.1)
            log("measuring")
            ping = ms(client.ping, args.rounds)
            alive = ms(lambda: liveness.workers(client, timeout=60), args.rounds)
            folder = ms(lambda: folder_access(settings), max(10, args.rounds // 10))
            stores = ms(lambda: probes.stores(settings), args.rounds)

            def health() -> None:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as r:
                    r.read()
            whole = ms(health, args.rounds)
            found = len(celery.control.inspect(timeout=1.0).ping() or {})
            inspect_full = ms(lambda: celery.control.inspect(timeout=1.0).ping(), 5)
            inspect_one = ms(lambda: celery.control.inspect(timeout=1.0, limit=1).ping(), 20)
        celery.close()
        client.close()

    figures += [
        Figure("redis PING (the baseline)", ping["p50"], "ms", key="ping_ms"),
        Figure("workers alive: one ZRANGEBYSCORE", alive["p50"], "ms", key="alive_ms",
               extra={"ratio_to_ping": alive["p50"] / ping["p50"]}),
        Figure("inspect ping, 1 s timeout (all workers)", inspect_full["p50"], "ms",
               key="inspect_ms", extra={"workers_found": found,
                                        "ratio_to_alive": inspect_full["p50"] / alive["p50"]}),
        Figure("inspect ping, limit=1 (first reply)", inspect_one["p50"], "ms",
               key="inspect_first_ms"),
        Figure("store probes (what /health did besides PING)", stores["p50"], "ms",
               key="stores_ms"),
        Figure(f"transcripts folder check, {args.files} files", folder["p50"], "ms",
               key="folder_ms", extra={"per_file_us": folder["p50"] * 1000 / args.files}),
        Figure("GET /health, real API (p50)", whole["p50"], "ms", "< 50 ms",
               whole["p50"] < 50, key="health_ms", extra={"p95": whole["p95"]}),
    ]
    if args.json:
        print(figures_json(figures, files=args.files, rounds=args.rounds))
    else:
        print(figures_table(figures))
    remove_tree(base)
    return 0 if all(f.ok is not False for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
