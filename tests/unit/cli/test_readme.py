"""Every command the README gives is true: it parses, its make target exists, every setting
is documented."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from solograph_services.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def shell_lines() -> list[str]:
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def solograph_invocations() -> list[list[str]]:
    found = []
    for line in shell_lines():
        for part in re.split(r"&&|\|\|", line):
            words = shlex.split(part.replace("$HOME", "/home/u"))
            while words and re.match(r"^[A-Z_]+=", words[0]):
                words.pop(0)
            if "--" in words:  # claude mcp add ... -- solograph mcp
                words = words[words.index("--") + 1:]
            if len(words) > 5 and words[:5] == ["0", "4", "*", "*", "*"]:
                words = words[5:]
            if words and words[0] == "solograph":
                found.append(words[1:])
    return found


def test_setup_section_gives_the_two_commands():
    setup = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", setup, flags=re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["docker compose up -d", "make test"]
    assert (ROOT / "docker-compose.yml").exists() or pytest.skip("compose file not yet here")


@pytest.mark.parametrize("argv", solograph_invocations(), ids=lambda a: " ".join(a) or "(bare)")
def test_every_solograph_command_in_the_readme_parses(argv):
    # The bare command (what `claude mcp add ... -- solograph` runs) serves MCP when its stdin
    # is not a terminal: tests/unit/cli/test_main_edges.py runs it under the SDK's client.
    argv = argv or ["mcp"]
    parser, _runs = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse reports and exits on a bad command line
        pytest.fail(f"`solograph {' '.join(argv)}` does not parse ({exc.code})")
    assert args.command


def test_readme_covers_many_commands():
    commands = {argv[0] for argv in solograph_invocations() if argv}
    assert {"registry", "scan", "symbols", "explain", "deps", "stats", "shared", "dupes",
            "refresh", "compact", "kb", "sessions", "sources", "usage"} <= commands


def test_the_claude_mcp_add_line_works_for_a_newcomer():
    """With KB_PATH (else kb_search, always loaded, has no KB), the bare command, and the note
    that Claude Code must find the command."""
    adds = [line for line in shell_lines() if line.startswith("claude mcp add -s user")]
    assert len(adds) == 1
    words = shlex.split(adds[0])
    assert words[words.index("--") + 1:] == ["solograph"]
    assert "KB_PATH=$HOME/notes" in words[words.index("-e") + 1]
    assert "on Claude Code's `PATH`" in README and "absolute path" in README


def test_the_cron_line_is_the_refresh_command():
    crons = [line for line in shell_lines() if line.startswith("0 4 * * *")]
    assert crons == ["0 4 * * * solograph refresh"]


def test_every_make_target_in_the_readme_exists():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, flags=re.M))
    for line in shell_lines():
        if line.startswith("make "):
            assert line.split()[1] in targets, line


def test_every_setting_is_documented():
    source = (ROOT / "shared" / "solograph" / "config.py").read_text()
    names = set(re.findall(r'"((?:SOLOGRAPH|CODEGRAPH)_[A-Z_]+|KB_PATH|CLAUDE_PROJECTS_PATH)"',
                           source))
    assert len(names) > 10
    missing = [n for n in sorted(names) if f"`{n}`" not in README]
    assert missing == []


def test_every_stack_variable_is_documented():
    example = (ROOT / ".env.example").read_text()
    names = set(re.findall(r"^([A-Z][A-Z_]+)=", example, flags=re.M))
    assert len(names) > 10
    assert [n for n in sorted(names) if f"`{n}`" not in README] == []


def test_the_first_paragraph_tells_the_meaning_lane_truthfully():
    first = README.split("\n\n", 2)[1]
    assert "no embedding models" not in first
    assert "optional" in first and "solograph[semantic]" in first


def test_the_two_claude_mcp_add_lines_use_distinct_names():
    adds = [shlex.split(line) for line in shell_lines() if line.startswith("claude mcp add")]
    assert len(adds) == 2
    names = []
    for words in adds:  # the name is the first word after the options (`-s user`, ...)
        rest, i = words[3:], 0
        while rest[i].startswith("-"):
            i += 1 if rest[i] in ("--",) else 2
        names.append(rest[i])
    assert len(set(names)) == 2, names


def test_help_names_the_meaning_lane_setting():
    from solograph_services.cli.main import EPILOG

    assert "SOLOGRAPH_SEMANTIC" in EPILOG
    parser, _ = build_parser()
    assert "SOLOGRAPH_SEMANTIC" in parser.format_help()
