"""The service stack under load: the HTTP API against the in-process read, the MCP gateway's
overhead per call, and the memory of each service at rest and after many queries.

Runs the real commands (`solograph api`, `solograph mcp --http`, and a worker and beat when
redis-server is available) on loopback over a generated portfolio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from portfolio_gen import generate  # noqa: E402

from common import (  # noqa: E402
    Figure,
    figures_json,
    figures_table,
    http_load,
    log,
    summarize,
    work_dir,
)
from solograph import reads  # noqa: E402
from solograph.config import Settings  # noqa: E402
from solograph.portfolio.sync import refresh_registry, scan_portfolio
from tests.support.procs import (  # noqa: E402
    free_port,
    process,
    redis_server,
    solograph_cmd,
    wait_for_http,
)


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (uvicorn and celery fork)."""
    total = 0
    pids = [pid]
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                             text=True, check=False).stdout
        pids += [int(p) for p in out.split()]
    except OSError:
        pass
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def build_index(args: argparse.Namespace) -> tuple[Settings, list[str]]:
    base = work_dir(f"api-{args.repos}r-{args.defs}d")
    repos = base / "repos"
    if not repos.exists():
        log(f"generating {args.repos} repositories ...")
        catalog = generate(repos, repos=args.repos, defs=args.defs, seed=1)
        (base / "catalog.json").write_text(json.dumps(catalog))
    catalog = json.loads((base / "catalog.json").read_text())
    home = base / "home"
    shutil.rmtree(home, ignore_errors=True)
    settings = Settings(home=home, scan_paths=(repos,))
    refresh_registry(settings)
    log(scan_portfolio(settings)["summary"])
    rng = random.Random(7)
    names = [n[0] for r in catalog["repos"] for n in r["names"]]
    queries = []
    for name in rng.sample(names, min(200, len(names))):
        parts = [w for w in __import__("re").split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", name) if w]
        queries.append(" ".join(parts[:3]).lower() or name)
    return settings, queries


def in_process(settings: Settings, queries: list[str], rounds: int) -> dict:
    for q in queries[:20]:
        reads.symbol_search(settings, q)
    samples = []
    for _ in range(rounds):
        for q in queries:
            t = time.perf_counter()
            reads.symbol_search(settings, q)
            samples.append((time.perf_counter() - t) * 1000)
    return summarize(samples)


def load(port: int, queries: list[str], clients: int, total: int) -> tuple[dict, float, int]:
    """`clients` keep-alive clients share `total` symbol searches."""
    paths = ["/v1/symbols?" + urlencode({"q": q, "limit": 20}) for q in queries]
    out = http_load(port, paths, clients=clients, total=total)
    return summarize(out["latencies"]), out["rps"], out["errors"]


async def mcp_calls(base: str, queries: list[str], n: int) -> dict:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    samples = []
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0)) as http, \
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
        for q in queries[:10]:
            await client.call_tool("symbol_search", {"query": q})
        for i in range(n):
            t = time.perf_counter()
            result = await client.call_tool("symbol_search", {"query": queries[i % len(queries)]})
            samples.append((time.perf_counter() - t) * 1000)
            assert not result.is_error
    return summarize(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repos", type=int, default=20)
    parser.add_argument("--defs", type=int, default=20000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--soak", type=int, default=10000, help="queries before re-measuring RSS")
    parser.add_argument("--mcp-calls", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    settings, queries = build_index(args)
    base_inproc = in_process(settings, queries, rounds=3)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOLOGRAPH_")}
    env["SOLOGRAPH_HOME"] = str(settings.home)
    api_port, mcp_port = free_port(), free_port()
    figures: list[Figure] = [
        Figure("in-process symbol search p50", base_inproc["p50"], "ms", key="inproc_p50"),
        Figure("in-process symbol search p95", base_inproc["p95"], "ms", key="inproc_p95")]
    logs = work_dir("api-logs")
    with process(solograph_cmd("api", "--port", str(api_port)), env=env,
                 log=logs / "api.log") as api, \
            process(solograph_cmd("mcp", "--http", "--port", str(mcp_port)), env=env,
                    log=logs / "mcp.log") as mcp:
        wait_for_http(f"http://127.0.0.1:{api_port}/health", proc=api)
        wait_for_http(f"http://127.0.0.1:{mcp_port}/health", proc=mcp)
        rest = {"api": rss_mb(api.pid), "mcp": rss_mb(mcp.pid)}
        load(api_port, queries, 4, 200)  # warm-up
        single, _, _ = load(api_port, queries, 1, 500)
        stats, rps, errors = load(api_port, queries, args.clients, args.requests)
        figures += [
            Figure("API p50 (1 client)", single["p50"], "ms", key="api_p50_single"),
            Figure(f"API p50 ({args.clients} clients)", stats["p50"], "ms", key="api_p50"),
            Figure(f"API p95 ({args.clients} clients)", stats["p95"], "ms", key="api_p95"),
            Figure("API requests/s", rps, "req/s", key="api_rps"),
            Figure("API p50 (1 client) / in-process p50", single["p50"] / base_inproc["p50"],
                   "x", key="api_ratio"),
            Figure("API errors", errors, "", "0", errors == 0, key="api_errors")]
        mcp_stats = asyncio.run(mcp_calls(f"http://127.0.0.1:{mcp_port}", queries,
                                          args.mcp_calls))
        figures += [
            Figure("MCP call p50 (HTTP, sequential)", mcp_stats["p50"], "ms", key="mcp_p50"),
            Figure("MCP gateway overhead p50", mcp_stats["p50"] - base_inproc["p50"], "ms",
                   key="mcp_overhead")]
        # Two halves: caches fill during the first; a leak keeps growing in the second.
        half = args.soak // 2
        rss = []
        for part in (1, 2):
            log(f"soak {part}/2: {half} API queries and {half // 10} MCP calls ...")
            load(api_port, queries, args.clients, half)
            asyncio.run(mcp_calls(f"http://127.0.0.1:{mcp_port}", queries, half // 10))
            rss.append({"api": rss_mb(api.pid), "mcp": rss_mb(mcp.pid)})
    for name in ("api", "mcp"):
        growth = rss[1][name] - rss[0][name]
        figures += [
            Figure(f"{name} RSS at rest", rest[name], "MB", key=f"{name}_rss_rest"),
            Figure(f"{name} RSS after {half} queries", rss[0][name], "MB",
                   key=f"{name}_rss_half"),
            Figure(f"{name} RSS after {2 * half} queries", rss[1][name], "MB",
                   "+< 5 MB over the 2nd half", growth < 5, key=f"{name}_rss_after")]
    if shutil.which("redis-server"):
        with redis_server() as url:
            wenv = {**env, "SOLOGRAPH_REDIS_URL": url}
            with process(solograph_cmd("worker", "-Q", "portfolio", "-c", "2"), env=wenv,
                         log=logs / "worker.log") as worker, \
                    process(solograph_cmd("beat"), env=wenv, log=logs / "beat.log") as beat:
                time.sleep(8)
                figures += [Figure("worker RSS at rest (2 processes)", rss_mb(worker.pid), "MB",
                                   key="worker_rss"),
                            Figure("beat RSS at rest", rss_mb(beat.pid), "MB", key="beat_rss")]
    print(figures_json(figures, cpus=os.cpu_count()) if args.json else figures_table(figures))
    return 0 if all(f.ok for f in figures if f.ok is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
