"""The memory nudge's gate: does a prompt lean on the user's earlier work?

A logistic regression over binary features, the prompt's words and the character 3- and
4-grams of each word ("как мы делали", "у нас свой крейт"), L2-normalised per prompt. The
weights are fitted from the user's own labelled prompts (`solograph memgate train`) and live
in the KB, not here, since they hold fragments of those prompts. Standard library only;
scoring one prompt takes well under a millisecond.
"""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

from solograph.frozen import Record, factory

KIND = "solograph-memgate"
MIN_WORDS = 3
NUDGE = ("This prompt may lean on earlier work. Before answering, look it up yourself: "
         "session_search for what past sessions said, tried or decided, kb_search for what the "
         "notes say. Write the query from the prompt's key terms, not the whole prompt.")
_WORD = re.compile(r"[^\W_]+")


def features(text: str) -> list[str]:
    words = _WORD.findall(text.lower())
    out = {"w:" + w for w in words}
    for w in words:
        padded = f" {w} "
        for n in (3, 4):
            out.update("c:" + padded[i:i + n] for i in range(len(padded) - n + 1))
    return sorted(out)


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


class Gate(Record):
    weights: dict[str, float]
    bias: float = 0.0
    threshold: float = 0.5
    min_words: int = MIN_WORDS
    trained: dict = factory(default_factory=dict)

    def score(self, text: str) -> float | None:
        """P(leans on earlier work), or None for a prompt under min_words words."""
        if word_count(text) < self.min_words:
            return None
        feats = features(text)
        if not feats:
            return None
        norm = 1 / math.sqrt(len(feats))
        get = self.weights.get
        z = self.bias + norm * sum(get(f, 0.0) for f in feats)
        return _sigmoid(z)

    def nudges(self, text: str) -> tuple[bool, float | None]:
        score = self.score(text)
        return (score is not None and score >= self.threshold), score

    def to_json(self) -> str:
        return json.dumps({"kind": KIND, "version": 1, "features": "words+char3-4",
                           "bias": round(self.bias, 6), "threshold": round(self.threshold, 6),
                           "min_words": self.min_words, "trained": self.trained,
                           "weights": {k: round(v, 5) for k, v in sorted(self.weights.items())
                                       if abs(v) >= 1e-4}},
                          ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def load(cls, path: Path) -> Gate:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise ValueError(f"{path} is not a memgate weights file (kind {KIND!r})")
        return cls(weights={str(k): float(v) for k, v in data["weights"].items()},
                   bias=float(data.get("bias", 0.0)),
                   threshold=float(data.get("threshold", 0.5)),
                   min_words=int(data.get("min_words", MIN_WORDS)),
                   trained=data.get("trained") or {})


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1 / (1 + math.exp(-z))
    e = math.exp(z)
    return e / (1 + e)


def fit(rows: list[tuple[str, int]], *, epochs: int = 40, rate: float = 0.5,
        l2: float = 1e-5, seed: int = 1) -> Gate:
    """Logistic regression by AdaGrad on log loss, L2-regularised."""
    data = [(features(t), 1 / math.sqrt(max(1, len(features(t)))), y) for t, y in rows]
    weights: dict[str, float] = {}
    squares: dict[str, float] = {}
    bias, bias_sq = 0.0, 0.0
    positives = sum(y for *_, y in data) / max(1, len(data))
    if 0 < positives < 1:
        bias = math.log(positives / (1 - positives))
    order = list(range(len(data)))
    rng = random.Random(seed)
    for _ in range(epochs):
        rng.shuffle(order)
        for i in order:
            feats, norm, y = data[i]
            z = bias + norm * sum(weights.get(f, 0.0) for f in feats)
            g = _sigmoid(z) - y
            bias_sq += g * g
            bias -= rate * g / math.sqrt(bias_sq + 1e-8)
            for f in feats:
                w = weights.get(f, 0.0)
                grad = g * norm + l2 * w
                sq = squares.get(f, 0.0) + grad * grad
                squares[f] = sq
                weights[f] = w - rate * grad / math.sqrt(sq + 1e-8)
    return Gate(weights=weights, bias=bias)


def auc(scores: list[float], labels: list[int]) -> float:
    """Area under the ROC curve: the chance a positive outscores a negative (ties half)."""
    pairs = sorted(zip(scores, labels, strict=True))
    positives = sum(labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return float("nan")
    rank_sum, i = 0.0, 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        mid = (i + j + 1) / 2  # 1-based average rank of the tie group
        rank_sum += mid * sum(y for _, y in pairs[i:j])
        i = j
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def best_threshold(scores: list[float], labels: list[int]) -> float:
    """The score cut with the best F1 on labelled prompts."""
    best, cut = -1.0, 0.5
    for candidate in sorted(set(scores)):
        tp = sum(1 for s, y in zip(scores, labels, strict=True) if s >= candidate and y)
        fp = sum(1 for s, y in zip(scores, labels, strict=True) if s >= candidate and not y)
        fn = sum(1 for s, y in zip(scores, labels, strict=True) if s < candidate and y)
        f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        if f1 > best:
            best, cut = f1, candidate
    return cut


def read_labelled(path: Path) -> list[tuple[str, int]]:
    """JSONL: {"prompt": "...", "label": 1|0|true|false} a line ("text" also accepted)."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            text = item.get("prompt", item.get("text"))
            label = item["label"]
        except (ValueError, KeyError, AttributeError):
            raise ValueError(f"{path}:{number}: expected {{\"prompt\": ..., \"label\": 0 or 1}}"
                             ) from None
        if not isinstance(text, str) or label not in (0, 1, True, False):
            raise ValueError(f"{path}:{number}: expected {{\"prompt\": ..., \"label\": 0 or 1}}")
        rows.append((text, int(label)))
    return rows


def train(rows: list[tuple[str, int]], *, holdout: float = 0.2, seed: int = 1,
          min_words: int = MIN_WORDS) -> tuple[Gate, dict]:
    """Fit on all but a held-out part (stratified, seeded), report AUC there and pick the
    threshold there; then refit on everything with that threshold."""
    rows = [(t, y) for t, y in rows if word_count(t) >= min_words]
    positives = [r for r in rows if r[1]]
    negatives = [r for r in rows if not r[1]]
    if len(positives) < 2 or len(negatives) < 2:
        raise ValueError("need at least two prompts of each label (of three words or more)")
    rng = random.Random(seed)
    rng.shuffle(positives)
    rng.shuffle(negatives)
    cut_p = max(1, int(len(positives) * holdout))
    cut_n = max(1, int(len(negatives) * holdout))
    held = positives[:cut_p] + negatives[:cut_n]
    fitted = positives[cut_p:] + negatives[cut_n:]
    first = fit(fitted, seed=seed)
    first.min_words = min_words
    scores = [first.score(t) or 0.0 for t, _ in held]
    labels = [y for _, y in held]
    threshold = best_threshold(scores, labels)
    area = auc(scores, labels)
    gate = fit(rows, seed=seed)
    gate.threshold, gate.min_words = threshold, min_words
    report = {"prompts": len(rows), "positives": len(positives), "train": len(fitted),
              "held_out": len(held), "auc_held_out": round(area, 4),
              "threshold": round(threshold, 4)}
    gate.trained = report
    return gate, report
