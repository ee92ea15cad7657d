"""kb_graph --nodes: every page of the scope once, every link between two of them as a pair of
places in that list, and each page's marks agreeing with the report's lists."""

from __future__ import annotations

from solograph import reads
from solograph.config import Settings
from tests.support.kb import make_kb


def test_the_drawing_agrees_with_the_report(tmp_path):
    settings = Settings(home=tmp_path / "home", kb_path=make_kb(tmp_path))
    plain = reads.kb_graph(settings)
    answer = reads.kb_graph(settings, nodes=True)
    assert {k: v for k, v in answer.items() if k not in ("nodes", "pairs")} == plain
    paths = [n["path"] for n in answer["nodes"]]
    assert paths == sorted(paths) and len(paths) == len(set(paths)) == answer["pages"]
    assert len(answer["pairs"]) == answer["edges"]
    assert all(0 <= a < len(paths) and 0 <= b < len(paths) and a != b
               for a, b in answer["pairs"])
    by_path = {n["path"]: n for n in answer["nodes"]}
    assert {p for p, n in by_path.items() if n["orphan"]} == set(answer["orphans"])
    assert {p for p, n in by_path.items() if n["missing_from_index"]} == \
        set(answer["missing_from_index"])
    for hub in answer["hubs"]:
        assert by_path[hub["path"]]["inbound"] == hub["inbound"]
    broken_from = {b["from"] for b in answer["broken"]}
    assert {p for p, n in by_path.items() if n["broken"]} == broken_from
