"""The agents suite: session search over the other coding agents' sessions (Codex CLI, Gemini
CLI, Cursor, Copilot CLI, OpenCode, aider), the fixtures of `$SOLOGRAPH_CORPORA/agents/` laid
out as each agent writes them (tests/support/agents.py), read by each agent's reader.

Every run indexes them into a fresh temporary home; their working folders are moved to a
folder of no machine (`/home/dev/agents`), aider's checkouts sit in the temporary home and
are registered in its portfolio registry, and the run's own temporary folder is not judged
temporary. A result's id is the session id; an aider session's is `aider:<checkout>` (its id
holds a hash of the checkout's path, which moves with the temporary home).

Tags: the agent (`codex`, `gemini`, `cursor`, `copilot`, `opencode`, `aider`), `subagent`
(words a sub-agent said), `tool` (a tool call's argument), `shared` (words several agents'
sessions hold: any of them counts).

    .venv/bin/python evals/agents.py -v        # this suite alone, with every miss
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evals.scoring import Case, QueryRefused, Unavailable  # noqa: E402

EVALS = Path(__file__).resolve().parent
CASES = EVALS / "agents.jsonl"
LIMIT = 20
WORK = Path("/home/dev/agents")

Log = Callable[[str], None]


class AgentsRunner:
    def __init__(self, settings) -> None:
        self.settings = settings

    def search(self, case: Case) -> list[str]:
        from solograph.errors import BadQuery
        from solograph.reads import session_search

        try:
            answer = session_search(self.settings, case.query, project=case.project,
                                    limit=LIMIT)
        except BadQuery as exc:
            raise QueryRefused(exc.message) from None
        return [f"aider:{hit['project']}" if hit["agent"] == "aider" else hit["session"]
                for hit in answer["results"]]


def corpus() -> Path:
    raw = os.environ.get("SOLOGRAPH_CORPORA", "")
    root = Path(raw) if raw else None
    if root is None or not (root / "agents" / "agent-sessions").is_dir():
        raise Unavailable("SOLOGRAPH_CORPORA is not set (or holds no agents/)")
    return root


@contextmanager
def open_runner(log: Log = print) -> Iterator[AgentsRunner]:
    from solograph.config import PRIVATE_MARKERS
    from solograph.sessions.policy import TEMP_PARTS, Policy
    from solograph.sessions.sync import sync_sessions
    from tests.support.agents import aider_checkouts, lay_out, register, settings_for

    root = corpus()
    with tempfile.TemporaryDirectory(prefix="solograph-eval-agents-") as tmp:
        base = Path(tmp)
        folders = lay_out(root, base / "home", WORK, make=False)
        register(base / "solo" / "portfolio.db", aider_checkouts(root, base / "checkouts"))
        settings = settings_for(base / "home", folders, solo=base / "solo")
        # The checkouts are in this run's temporary folder: not a batch run's.
        policy = Policy(temp_roots=(), temp_parts=TEMP_PARTS, markers=PRIVATE_MARKERS)
        log(f"agents: {sync_sessions(settings, policy=policy)['summary']}")
        yield AgentsRunner(settings)


def main(argv: list[str] | None = None) -> int:
    """This suite alone, scored and shown by the runner of evals/run.py."""
    from evals import run

    args = argv if argv is not None else sys.argv[1:]
    result = run.run_suite(run.SUITES["agents"], CASES)
    if result is None:
        return 0
    print(run.render(result, verbose="-v" in args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
