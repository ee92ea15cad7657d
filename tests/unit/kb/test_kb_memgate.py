"""The memory nudge's gate: features, training with a held-out AUC, scoring speed, the CLI."""

from __future__ import annotations

import json
import os
import random
import subprocess

from solograph.kb import memgate
from tests.support.procs import solograph_cmd

THINGS = ["webhook retry", "the vector index", "auth middleware", "billing page", "crate",
          "deploy script", "рендер", "миграции", "индекс", "парсер", "кэш", "hook"]
LEANS = ["как мы делали {x} в прошлый раз", "what did we decide about {x}",
         "у нас свой {x}, помнишь какой", "remember the {x} we built last month",
         "where did we put {x} before", "как мы решили с {x} тогда",
         "use the same {x} approach as last time", "мы уже чинили {x}, как это было"]
FRESH = ["write a function for {x}", "explain how {x} works in general",
         "fix the typo in {x}", "напиши тест для {x}", "rename {x} to something clearer",
         "add logging to {x}", "объясни что такое {x}", "make {x} faster"]


def labelled(n: int, seed: int) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    rows = [(rng.choice(LEANS).format(x=rng.choice(THINGS)), 1) for _ in range(n)]
    rows += [(rng.choice(FRESH).format(x=rng.choice(THINGS)), 0) for _ in range(n)]
    rng.shuffle(rows)
    return rows


def test_features_are_words_and_char_3_4_grams():
    feats = memgate.features("Как мы")
    assert {"w:как", "w:мы", "c: ка", "c:как", "c:ак ", "c: как", "c:как ", "c: мы",
            "c:мы "} <= set(feats)


def test_auc_counts_ties_as_half():
    assert memgate.auc([0.1, 0.9], [0, 1]) == 1.0
    assert memgate.auc([0.5, 0.5], [0, 1]) == 0.5
    assert memgate.auc([0.9, 0.1, 0.5, 0.4], [0, 1, 1, 0]) == 0.25


def test_training_separates_held_out_prompts():
    gate, report = memgate.train(labelled(150, seed=1))
    assert report["auc_held_out"] > 0.9
    assert report["held_out"] == 60 and report["prompts"] == 300
    fresh = labelled(60, seed=7)
    scores = [gate.score(t) for t, _ in fresh]
    assert memgate.auc(scores, [y for _, y in fresh]) > 0.9
    assert gate.nudges("как мы делали кэш в прошлый раз")[0]
    assert not gate.nudges("напиши тест для парсера")[0]
    assert gate.score("two words") is None  # under three words: never scored


def test_weights_round_trip(tmp_path):
    """The scoring speed is a figure of bench/kb_bench.py (`memgate scoring`), not a test."""
    gate, _ = memgate.train(labelled(150, seed=2))
    path = tmp_path / "gate.json"
    path.write_text(gate.to_json(), encoding="utf-8")
    loaded = memgate.Gate.load(path)
    prompt = "what did we decide about the vector index for sessions"
    assert abs(loaded.score(prompt) - gate.score(prompt)) < 1e-3
    assert loaded.nudges(prompt)[0] == gate.nudges(prompt)[0]


def test_cli_trains_and_prints_the_held_out_auc(tmp_path):
    data = tmp_path / "labelled.jsonl"
    data.write_text("".join(json.dumps({"prompt": t, "label": y}, ensure_ascii=False) + "\n"
                            for t, y in labelled(100, seed=3)), encoding="utf-8")
    out = tmp_path / "gate.json"
    done = subprocess.run(solograph_cmd("memgate", "train", str(data), "--out", str(out),
                                        "--json"),
                          env={**os.environ, "SOLOGRAPH_HOME": str(tmp_path / "home")},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["auc_held_out"] > 0.9 and report["out"] == str(out)
    assert json.loads(out.read_text(encoding="utf-8"))["kind"] == memgate.KIND
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "x"}\n', encoding="utf-8")
    failed = subprocess.run(solograph_cmd("memgate", "train", str(bad), "--out", str(out)),
                            capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1 and "bad.jsonl:1" in failed.stderr
