"""`python -m solograph_services.search`: the slim image's entry point (the full install runs
the same server as `solograph http`)."""

from __future__ import annotations

import argparse
import sys

from solograph.config import Settings
from solograph.errors import SolographError
from solograph.semantic import available
from solograph_services.search.app import serve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="solograph-search",
                                     description="The sources search API for SearXNG.")
    parser.add_argument("--host", help="bind address (default SOLOGRAPH_HOST or 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default SOLOGRAPH_SEARCH_PORT or 8002)")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env(lane_available=available)
        serve(settings.with_(host=args.host or settings.host,
                             search_port=args.port or settings.search_port))
    except SolographError as exc:
        print(f"solograph-search: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
