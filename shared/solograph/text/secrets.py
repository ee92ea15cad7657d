"""Secrets redaction: every text that any index stores passes through `redact` first.

Each rule finds one kind of secret and names the span that holds the value; only that span is
replaced, so `GITHUB_TOKEN=ghp_...` becomes `GITHUB_TOKEN=[REDACTED]` and
`postgres://app:pw@db/x` becomes `postgres://app:[REDACTED]@db/x`. Placeholders (`your-key`,
`${VAR}`, `<token>`, `xxxx`, `changeme`, ...) and code (`os.environ["X"]`, `settings.token`)
stay, because they are not secrets and people search for them.

Speed matters more than elegance here: it runs on every line of every transcript. Each rule has
literal keywords, and a rule's regex only runs when one of them occurs in the text, so most
text costs a few substring searches. Patterns begin with a literal wherever possible so that
`re` can skip ahead with its fast literal search. Case-insensitive rules run their lowercase
pattern on `text.lower()` (same offsets whenever lowering keeps the length, which it does
outside a few rare characters) because `re.IGNORECASE` disables that fast search.

Bump RULES_VERSION whenever a rule changes: indexes store it and re-clean old rows on open.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

REDACTED = "[REDACTED]"
RULES_VERSION = 1

Check = Callable[[str, re.Match[str], int, int], bool]


@dataclass(frozen=True)
class Rule:
    """One kind of secret.

    `pattern` is the whole rule as one regex over the original text. For speed the rule is also
    kept as `parts`, one regex per alternative, each led by a literal so that `re` can skip
    ahead, and each run only when its keyword occurs in the text. A `lowercase` rule is written
    in lowercase: its keywords and parts work on `text.lower()`. `groups` name the groups that
    may hold the secret (the first that took part wins; 0 is the whole match). Text right
    before a match must match `before` when it is set, and a whole-match secret then starts
    there. `check(text, match, start, end)` may still reject a value; placeholders are
    rejected for every rule.
    """

    name: str
    pattern: re.Pattern[str]
    keywords: tuple[str, ...]
    lowercase: bool = False
    groups: tuple[int | str, ...] = (0,)
    check: Check | None = None
    before: re.Pattern[str] | None = None
    parts: tuple[tuple[str, re.Pattern[str]], ...] = field(default=(), repr=False,
                                                             compare=False)


def _rule(name: str, heads: tuple[tuple[str, str], ...], tail: str = "", *,
          lowercase: bool = False, groups: tuple[int | str, ...] = (0,),
          check: Check | None = None, before: str | None = None) -> Rule:
    """heads: (keyword, regex) alternatives; each regex should start with a literal."""
    whole = "(?P<kw>" + "|".join(head for _, head in heads) + ")" + tail
    parts = tuple((keyword, re.compile("(?P<kw>" + head + ")" + tail)) for keyword, head in heads)
    return Rule(
        name=name,
        pattern=re.compile(whole, re.IGNORECASE if lowercase else 0),
        keywords=tuple(dict.fromkeys(keyword for keyword, _ in heads)),
        lowercase=lowercase,
        groups=groups,
        check=check,
        before=re.compile(before) if before else None,
        parts=parts,
    )


# --- value checks -------------------------------------------------------------------------

_PLACEHOLDER = re.compile(
    r"your|example|placeholder|dummy|changeme|change[_-]me|redacted|fake|x{4,}|\.\.\.|\*\*\*"
    r"|[•…]|\$\{|\{\{|<[^>\s]*>|^[$%<{!]|[_-]here$",
    re.IGNORECASE,
)
_PLACEHOLDER_WORDS = frozenset({
    "", "none", "null", "nil", "undefined", "true", "false", "yes", "no", "on", "off",
    "xxx", "todo", "tbd", "fixme", "secret", "password", "passwd", "pass", "pwd", "token",
    "key", "apikey", "api_key", "api-key", "value", "string", "str", "empty", "test",
})
_FILLER = frozenset("xX*.•#-_ ")


def _is_placeholder(value: str) -> bool:
    if value.lower() in _PLACEHOLDER_WORDS or set(value) <= _FILLER:
        return True
    if not any(c.isalnum() for c in value):  # `}],` or `—`: a fragment of code or prose
        return True
    return _PLACEHOLDER.search(value) is not None


def _classes(value: str) -> int:
    """How many of lowercase, uppercase and digits occur in value."""
    return ((value.upper() != value) + (value.lower() != value)
            + any(c.isdigit() for c in value))


_HEX = re.compile(r"[0-9a-f]{32,}")


def _random3(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """Real keys are random: upper, lower and digits all occur (or long lowercase hex)."""
    value = text[start:end]
    tail = value[value.rfind("-") + 1:] if "-" in value else value
    return _classes(value) == 3 or _HEX.fullmatch(tail) is not None


def _random2(text: str, m: re.Match[str], start: int, end: int) -> bool:
    return _classes(text[start:end]) >= 2


_B64_RUN = re.compile(r"[A-Za-z0-9+/]{20,}")


def _key_body(text: str, m: re.Match[str], start: int, end: int) -> bool:
    body = m.group("body")
    if body is None:
        return len(m.group("tail")) >= 40
    return _B64_RUN.search(body) is not None


_NAME_TAIL = re.compile(r"[A-Za-z0-9_.$@-]*\Z")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_WORD = re.compile(r"[A-Za-z_]+")
_SHORT_NUMBER = re.compile(r"\d{1,6}")


def _assignment(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """Tell a literal secret from a label, a variable, a type or a short count."""
    value = text[start:end]
    keyword = m.group("kw").lower()
    name_start = _NAME_TAIL.search(text, max(0, m.start() - 64), m.start()).start()
    name = text[name_start:m.end("kw")].lstrip("-$@.")
    if value.lower() in (name.lower(), keyword):  # token=token, "password": "Password"
        return False
    if "pass" not in keyword and "pwd" not in keyword and _SHORT_NUMBER.fullmatch(value):
        return False  # max_token = 512
    if m.group("bare") is None:
        # A quoted literal is a secret unless it is a label or a fragment of a longer string.
        if value != value.strip():
            return False
        return not (" " in value and keyword.strip("_-") in value.lower())
    if _DOTTED.fullmatch(value):  # settings.token, process.env.TOKEN
        return False
    if not _WORD.fullmatch(value):  # has digits or symbols: a literal
        return True
    # A bare word is a literal in env files and URLs, else a variable, a type or prose.
    sep = m.group("sep")
    env_style = name.upper() == name and sep in ("=", ":")
    tight = m.end("kw") == m.start("sep") and m.end("sep") == start and sep == "="
    return env_style or (tight and text[end:end + 1] in ("", "\n", "\r", "&"))


def _connection(text: str, m: re.Match[str], start: int, end: int) -> bool:
    return text[start:end].lower() not in ("password", "pass", "passwd", "pwd", "secret")


# --- rules -----------------------------------------------------------------------------------

# A lookbehind placed after the leading literal (`ghp_(?<![\w-]ghp_)`) checks the character
# before a token without costing re its fast literal scan, which a leading lookbehind would.
_END = r"(?![A-Za-z0-9_-])"

_KEY_OWNERS = ("api", "access", "private", "signing", "encryption", "master", "auth", "client",
               "app")
_ASSIGN_HEADS = (
    ("token", "token"),
    ("secret", r"secret(?:[_-]?key)?"),
    ("pass", r"pass(?:w(?:or)?d|phrase|(?<=[_.-]pass))"),
    ("_pwd", "_pwd"),
    ("key", "key(?:" + "|".join(f"(?<={owner}{sep}key)" for owner in _KEY_OWNERS
                               for sep in ("", "_", "-")) + ")"),
)
# Written in lowercase: it runs on text.lower(). `\\*` lets keys and values sit inside
# JSON-escaped strings (raw transcript lines), `"password": ` and `\"password\": ` alike.
_ASSIGN_TAIL = (
    r"(?:\\*[\"'])?[ \t]*"
    r"(?P<sep>:[ \t]*[a-z_][\w.\[\], |]{0,40}?[ \t]+=(?!=)|:=|=>|=(?!=)|:(?![:/\\]))"
    r"[ \t]*"
    r"(?:\\*\"(?P<dq>[^\"\\\n]*)\\*\"|\\*'(?P<sq>[^'\\\n]*)\\*'"
    r"|(?P<bare>[^\s\"'`,;&\\()\[\]{}<>|]+))"
)

RULES: tuple[Rule, ...] = (
    _rule(
        "private_key",
        (("PRIVATE KEY", r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"),),
        r"(?:(?P<body>(?:[^-]|-(?!----)){0,200000})-----END [A-Z0-9 ]{0,40}PRIVATE KEY"
        r"(?: BLOCK)?-----|(?P<tail>(?:(?:\s|\\[rn])+[A-Za-z0-9+/=]{16,})*))",
        check=_key_body,
    ),
    _rule("anthropic_api_key", (("sk-ant-", r"sk-ant-(?<![\w-]sk-ant-)"),),
          r"[A-Za-z0-9_-]{20,}" + _END, check=_random3),
    _rule("openai_api_key",
          (("sk-", r"sk-(?<![\w-]sk-)(?!ant-)(?:proj-|svcacct-|admin-|None-)?"),),
          r"[A-Za-z0-9_-]{20,}" + _END, check=_random3),
    _rule("github_token",
          (("gh", r"gh[pousr]_(?<![\w-]gh[pousr]_)[A-Za-z0-9]{36,255}"),
           ("github_pat_", r"github_pat_(?<![\w-]github_pat_)[A-Za-z0-9_]{30,255}")),
          _END),
    _rule("gitlab_token", (("glpat-", r"glpat-(?<![\w-]glpat-)"),),
          r"[A-Za-z0-9_-]{20,}" + _END, check=_random2),
    _rule("npm_token", (("npm_", r"npm_(?<![\w-]npm_)"),), r"[A-Za-z0-9]{36}" + _END,
          check=_random3),
    _rule("pypi_token", (("pypi-AgE", r"pypi-AgE(?<![\w-]pypi-AgE)"),),
          r"[A-Za-z0-9_-]{50,}" + _END),
    _rule("aws_access_key_id",
          (("AKIA", r"AKIA(?<![A-Za-z0-9]AKIA)"), ("ASIA", r"ASIA(?<![A-Za-z0-9]ASIA)")),
          r"[A-Z0-9]{16}(?![A-Za-z0-9])"),
    _rule(
        "aws_secret_access_key",
        (("secret", r"aws_?secret_?(?:access_?)?key"),),
        r"(?:\\*[\"'])?[ \t]*(?::=|=>|=|:)[ \t]*(?:\\*[\"'])?"
        r"(?P<v>[a-z0-9/+]{40})(?![a-z0-9/+=])",
        lowercase=True, groups=("v",), check=_random2,
    ),
    _rule("google_api_key", (("AIza", r"AIza(?<![\w-]AIza)"),), r"[0-9A-Za-z_-]{35}" + _END),
    _rule("slack_token", (("xox", r"xox[abprs]-(?<![\w-]xox[abprs]-)"),),
          r"[0-9]+-[0-9A-Za-z-]{10,}" + _END),
    _rule("slack_webhook",
          (("hooks.slack.com", r"hooks\.slack\.com/(?:services|workflows|triggers)/"),),
          r"(?P<v>[A-Za-z0-9/_-]{20,})", groups=("v",)),
    _rule("stripe_key",
          (("sk_", r"sk_(?:live|test)_(?<![\w-]sk_live_)(?<![\w-]sk_test_)[0-9A-Za-z]{16,}"),
           ("rk_", r"rk_(?:live|test)_(?<![\w-]rk_live_)(?<![\w-]rk_test_)[0-9A-Za-z]{16,}"),
           ("whsec_", r"whsec_(?<![\w-]whsec_)[0-9A-Za-z]{24,}")),
          _END, check=_random2),
    _rule("huggingface_token", (("hf_", r"hf_(?<![\w-]hf_)"),), r"[A-Za-z0-9]{30,}" + _END,
          check=_random2),
    # A numeric bot id, a colon and 35 characters, which in practice start with AA.
    _rule("telegram_bot_token", ((":AA", r":AA(?<=[0-9]:AA)"),), r"[A-Za-z0-9_-]{33}" + _END,
          before=r"(?<![\w:])[0-9]{8,10}\Z"),
    _rule("jwt", (("eyJ", r"eyJ(?<![\w-]eyJ)"),),
          r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*" + _END),
    _rule("connection_string_password", (("://", "://"),),
          r"[^\s:@/?#\"'`\\<>]*:(?P<pw>[^\s/?#\"'`\\<>]+)@(?=[A-Za-z0-9\[_-])",
          groups=("pw",), check=_connection),
    _rule(
        "authorization_header",
        (("authorization", "authorization"),),
        r"(?:\\*[\"'])?[ \t]*[:=][ \t]*(?:\\*[\"'])?(?:basic|token|bot|apikey)"
        r"[ \t]+(?P<v>[a-z0-9._~+/=-]{8,})",
        lowercase=True, groups=("v",), check=_random2,
    ),
    _rule("bearer_token", (("bearer", "bearer"),), r"[ \t]+(?P<v>[a-z0-9._~+/-]{16,}=*)",
          lowercase=True, groups=("v",), check=_random2),
    _rule("secret_assignment", _ASSIGN_HEADS, _ASSIGN_TAIL, lowercase=True,
          groups=("dq", "sq", "bare"), check=_assignment),
)


def _scan(text: str) -> list[tuple[int, int, int, str]]:
    found: list[tuple[int, int, int, str]] = []
    lower: str | None = None
    aligned = True
    for priority, rule in enumerate(RULES):
        haystack = text
        if rule.lowercase:
            if lower is None:
                lower = text.lower()
                aligned = len(lower) == len(text)
            haystack = lower
            if not aligned:
                # Lowering changed offsets (rare characters such as U+0130): search the
                # original text with the case-insensitive pattern instead.
                if any(keyword in lower for keyword in rule.keywords):
                    _collect(text, rule, priority, rule.pattern.finditer(text), found)
                continue
        for keyword, part in rule.parts:
            if keyword in haystack:
                _collect(text, rule, priority, part.finditer(haystack), found)
    return found


def _collect(text: str, rule: Rule, priority: int, matches: Iterator[re.Match[str]],
             found: list[tuple[int, int, int, str]]) -> None:
    for m in matches:
        for group in rule.groups:
            start, end = m.span(group)
            if start >= 0:
                break
        if rule.before is not None:
            head = rule.before.search(text, max(0, m.start() - 16), m.start())
            if head is None:
                continue
            if rule.groups == (0,):
                start = head.start()
        if start >= end or _is_placeholder(text[start:end]):
            continue
        if rule.check is not None and not rule.check(text, m, start, end):
            continue
        found.append((start, end, priority, rule.name))


def _merge(found: list[tuple[int, int, int, str]]) -> list[tuple[str, int, int]]:
    """Overlapping spans become one, named by the rule that starts first (then the earlier
    rule in RULES)."""
    found.sort(key=lambda f: (f[0], -f[1], f[2]))
    merged: list[tuple[str, int, int]] = []
    for start, end, _, name in found:
        if merged and start < merged[-1][2]:
            if end > merged[-1][2]:
                merged[-1] = (merged[-1][0], merged[-1][1], end)
            continue
        merged.append((name, start, end))
    return merged


def find_secrets(text: str) -> list[tuple[str, int, int]]:
    """(rule name, start, end) of each span that `redact` replaces, in text order."""
    found = _scan(text)
    return _merge(found) if found else []


def redact(text: str) -> str:
    """Return text with every secret value replaced by REDACTED.

    >>> redact("export GITHUB_TOKEN=" + "ghp_" + "a1B2" * 9)
    'export GITHUB_TOKEN=[REDACTED]'

    Text with nothing to redact is returned as the same object.
    """
    found = _scan(text)
    if not found:
        return text
    parts: list[str] = []
    last = 0
    for _, start, end in _merge(found):
        parts.append(text[last:start])
        parts.append(REDACTED)
        last = end
    parts.append(text[last:])
    return "".join(parts)
