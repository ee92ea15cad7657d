"""Secrets on realistic text: every fake secret of the corpus goes, every look-alike stays, and
cutting a text never keeps the head of a secret (`redact_cut` redacts before it cuts).
Generated input (hypothesis) checks the same on text nobody wrote by hand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solograph.text.secret_checks import names_a_secret
from solograph.text.secrets import REDACTED, redact, redact_cut
from solograph.text.secrets import _secrets as find_secrets
from tests.support.secrets_corpus import NEGATIVES, OTHER, PROMISED, Case

CASES = PROMISED + OTHER


def leaks(out: str, secret: str) -> bool:
    """Whether any 12 characters in a row of the secret (all of a shorter one) survive."""
    width = min(len(secret), 12)
    return any(secret[i:i + width] in out for i in range(len(secret) - width + 1))


def case_id(case: Case) -> str:
    return f"{case.kind}:{case.text[:40]}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_fake_secret_goes(case: Case) -> None:
    out = redact(case.text)
    assert not leaks(out, case.secret), out
    assert REDACTED in out


@pytest.mark.parametrize(("kind", "text"), NEGATIVES, ids=[t[:40] for _, t in NEGATIVES])
def test_every_look_alike_stays(kind: str, text: str) -> None:
    assert redact(text) is text


def test_corpus_size() -> None:
    # The corpus is the measure the rules are held to; it must not shrink unnoticed.
    assert len(PROMISED) >= 110 and len(OTHER) >= 80 and len(NEGATIVES) >= 55
    assert len({c.kind for c in OTHER}) >= 15


@pytest.mark.parametrize("case", [c for c in CASES if c.text.count(c.secret) == 1], ids=case_id)
def test_a_cut_through_a_secret_keeps_none_of_it(case: Case) -> None:
    start = case.text.index(case.secret)
    for cut in range(start + 1, start + len(case.secret)):
        out = redact_cut(case.text, cut)
        # All the cut text keeps from the secret's start on is one REDACTED.
        assert out.endswith(REDACTED), (cut, out)
        if out.startswith(case.text[:start]):
            assert out[start:] == REDACTED, (cut, out)


@pytest.mark.parametrize(("text", "limit", "expected"), [
    ("short text", 100, "short text"),
    ("GITHUB_TOKEN=" + "ghp_" + "a1B2" * 9 + " and more", 20, f"GITHUB_TOKEN={REDACTED}"),
    ("plain words, no secret at all", 11, "plain words"),
    ("DB_PASSWORD=hunter2pass", 16, f"DB_PASSWORD={REDACTED}"),
    ("postgres://u:hunter2pass@h/db then text", 18, f"postgres://u:{REDACTED}"),
])
def test_redact_cut(text: str, limit: int, expected: str) -> None:
    assert redact_cut(text, limit) == expected


def test_a_key_block_longer_than_the_window_goes_from_its_start() -> None:
    body = "\n".join("MIIEowIBAAKCAQEA" + "q1W2e3R4t5Y6u7I8" * 3 for _ in range(3000))
    text = "intro\n-----BEGIN RSA PRIVATE KEY-----\n" + body + "\n-----END RSA PRIVATE KEY-----"
    out = redact_cut(text, 100)
    assert out == f"intro\n{REDACTED}"


def test_a_cut_text_is_a_prefix_of_the_redacted_whole() -> None:
    whole = "\n".join(c.text for c in CASES[:60])
    full = redact(whole)
    for limit in range(0, len(whole), 97):
        assert full.startswith(redact_cut(whole, limit)), limit


@pytest.mark.parametrize(("value", "named"), [
    ("DB_PASSWORD", True), ("next_token", True), ("myJwtSecret", True), ("role-secret-key", True),
    ("api_key2", True), ("Enter your password", True), ("SAS_KEY", True),
    ("hunter2pass", False), ("mypassword123", False), ("Password1", False),
    ("secretpass99", False), ("tokenized9", False), ("s3cr3t-v@lue", False),
])
def test_a_name_of_a_secret_is_told_from_a_secret(value: str, named: bool) -> None:
    assert names_a_secret(value) is named


# --- generated input ----------------------------------------------------------------------------

FILLER = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200)
SEPARATED = st.builds(lambda before, case, after: (before + "\n" + case.text + "\n" + after, case),
                      FILLER, st.sampled_from(CASES), FILLER)


@settings(max_examples=300, deadline=None)
@given(FILLER)
def test_any_text_redacts_without_error_and_twice_changes_nothing(text: str) -> None:
    once = redact(text)
    assert redact(once) == once
    for name, start, end in find_secrets(text):
        assert 0 <= start < end <= len(text) and name


@settings(max_examples=300, deadline=None)
@given(SEPARATED)
def test_a_secret_amid_any_text_goes(pair: tuple[str, Case]) -> None:
    text, case = pair
    out = redact(text)
    assert not leaks(out, case.secret)
    assert redact(out) == out


@settings(max_examples=300, deadline=None)
@given(SEPARATED, st.integers(min_value=0, max_value=800))
def test_a_cut_anywhere_keeps_no_secret(pair: tuple[str, Case], limit: int) -> None:
    text, case = pair
    out = redact_cut(text, limit)
    assert redact(text).startswith(out)
    assert not leaks(out, case.secret)
