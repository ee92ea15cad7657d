"""Secrets redaction: every text that any index stores passes through `redact` first.

Each rule finds one kind of secret and the span that holds its value; only that span is
replaced, so `GITHUB_TOKEN=ghp_...` becomes `GITHUB_TOKEN=[REDACTED]` and
`postgres://app:pw@db/x` becomes `postgres://app:[REDACTED]@db/x`. Placeholders (`your-key`,
`${VAR}`, `<token>`, `xxxx`, `changeme`, ...) and code (`os.environ["X"]`, `settings.token`)
stay: they are not secrets, and people search for them.

It runs on every line of every transcript, so speed decides the shape:

- The text is encoded to ASCII bytes once (`?` for every other character, so offsets stay
  character offsets) and lowercased once; rules run on those bytes, checks on the text.
- One prefilter pass finds which keywords occur (`token`, `sk-`, `eyj`, `://`, ...). It looks
  for each keyword from its rarest character (`k(?<=tok)en`), so `re` tests few positions.
  Text without keywords, most text, costs that one pass.
- A rule runs only for the keywords it needs, as regexes that begin with a literal, so that
  `re` skips ahead with its fast literal search.
- Whatever was found is redacted, and the lines that changed are scanned again, so that
  `redact(redact(x)) == redact(x)` even where a rule looks at a neighbour that got redacted.

Bump RULES_VERSION whenever a rule changes: indexes store it and re-clean old rows on open.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

REDACTED = "[REDACTED]"
RULES_VERSION = 1

Check = Callable[[str, re.Match[bytes], int, int], bool]


@dataclass(frozen=True)
class Rule:
    """One kind of secret.

    `pattern` is the rule as one regex over the original text. `redact` runs the same source
    as `parts`: one bytes regex per alternative, each with the keywords (lowercase) that must
    occur for it to match; `lowercase` parts are written in lowercase and run on the lowercased
    text. `groups` name the groups that may hold the secret (the first that took part wins; 0 is
    the whole match). Text right before a match must match `before` when set, and a whole-match
    secret then starts there. `check(text, match, start, end)` may still reject a value;
    placeholders are rejected for every rule.
    """

    name: str
    pattern: re.Pattern[str]
    keywords: tuple[str, ...]
    lowercase: bool = False
    groups: tuple[int | str, ...] = (0,)
    check: Check | None = None
    before: re.Pattern[bytes] | None = None
    parts: tuple[tuple[frozenset[str], re.Pattern[bytes]], ...] = field(
        default=(), repr=False, compare=False)


Head = tuple[tuple[str, ...], str]


def _rule(name: str, heads: tuple[Head, ...], tail: str = "", *, lowercase: bool = False,
          groups: tuple[int | str, ...] = (0,), check: Check | None = None,
          before: str | None = None) -> Rule:
    """heads: (keywords, regex) alternatives, each regex led by a literal; tail follows all."""
    whole = "(?P<kw>" + "|".join(head for _, head in heads) + ")" + tail
    flags = re.ASCII | (re.IGNORECASE if lowercase else 0)
    return Rule(
        name=name,
        pattern=re.compile(whole, flags),
        keywords=tuple(dict.fromkeys(k for keywords, _ in heads for k in keywords)),
        lowercase=lowercase,
        groups=groups,
        check=check,
        before=re.compile(before.encode()) if before else None,
        parts=tuple((frozenset(k.lower() for k in keywords),
                     re.compile(("(?P<kw>" + head + ")" + tail).encode()))
                    for keywords, head in heads),
    )


# --- value checks ----------------------------------------------------------------------------

_PLACEHOLDER = re.compile(
    r"your|example|placeholder|dummy|changeme|change[_-]me|redacted|fake|x{4,}"
    r"|(?:^|[_.-])xxx(?:$|[_.-])|\.\.\.|\*\*\*|[•…]|[_-]here$|<[^>\s]*>|^\[+[A-Za-z_ -]*\]+$"
    # Variables and templates: $VAR ${VAR} $(cmd) %VAR% %(name)s {name} {{ x }} `Bearer $TOKEN`
    r"|^\$[A-Za-z_{(]|^%[A-Za-z_(%]|^\{|\$\{|\{\{|(?:^|\s)\$[A-Za-z_]\w*$",
    re.IGNORECASE,
)
_PLACEHOLDER_WORDS = frozenset({
    "none", "null", "nil", "undefined", "true", "false", "yes", "no", "on", "off", "xxx",
    "todo", "tbd", "fixme", "secret", "password", "passwd", "pass", "pwd", "token", "key",
    "apikey", "api_key", "api-key", "value", "string", "str", "empty", "test",
})


def _is_placeholder(value: str) -> bool:
    if value.lower() in _PLACEHOLDER_WORDS:
        return True
    if not any(c.isalnum() and c not in "xX" for c in value):  # `***`, `xxx`, `}],`
        return True
    return _PLACEHOLDER.search(value) is not None


def _classes(value: str) -> int:
    """How many of lowercase, uppercase and digits occur in value."""
    return (value.upper() != value) + (value.lower() != value) + any(c.isdigit() for c in value)


_HEX = re.compile(r"[0-9a-f]{32,}")


def _random3(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    """Real keys are random: upper, lower and digits all occur (or it is long lowercase hex)."""
    value = text[start:end]
    return _classes(value) == 3 or _HEX.fullmatch(value.rsplit("-", 1)[-1]) is not None


def _random2(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    return _classes(text[start:end]) >= 2


_B64_RUN = re.compile(r"[A-Za-z0-9+/]{20,}")


def _key_body(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    """A block whose body is `...` is documentation; a cut-off block still leaks its start."""
    if m.start("body") < 0:
        return m.end("tail") - m.start("tail") >= 40
    return _B64_RUN.search(text, m.start("body"), m.end("body")) is not None


_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_SECRET_WORDS = frozenset({"token", "secret", "password", "passwd", "pass", "pwd", "key",
                           "apikey", "passphrase", "credential", "credentials"})
_NAMEISH = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def _names_a_secret(value: str) -> bool:
    """`next_token`, `DATABASE_PASSWORD`, `role-secret-key`, `myJwtSecret`: a variable, a
    setting or a label that names a secret, not the secret itself."""
    if " " in value:
        words = value.split()
        return any(w in _SECRET_WORDS for word in words for w in _WORDS.findall(word.lower()))
    return _NAMEISH.fullmatch(value) is not None and any(
        word.lower() in _SECRET_WORDS for word in _WORDS.findall(value))


# `next_token`, `page_token`, `eos_token`: pagination cursors, idempotency keys and tokenizer
# vocabulary, not credentials.
_NOT_CREDENTIAL_TOKENS = frozenset({
    "next", "prev", "previous", "page", "continuation", "pagination", "cursor", "sync", "resume",
    "lock", "change", "request", "idempotency", "input", "output", "start", "end", "stop",
    "first", "last", "max", "min", "num", "special", "eos", "bos", "pad", "unk", "sep", "cls",
    "mask",
})
_NAME_TAIL = re.compile(r"[A-Za-z0-9_.$@-]*\Z")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_WORD = re.compile(r"[A-Za-z_]+")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_COLOR = re.compile(r"#[0-9A-Fa-f]{3,8}")


def _assignment(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    """Tell a literal secret from a label, a variable, a type or a small number."""
    value = text[start:end]
    keyword = text[m.start("kw"):m.end("kw")].lower()
    name_start = _NAME_TAIL.search(text, max(0, m.start("kw") - 64), m.start("kw")).start()
    name = text[name_start:m.end("kw")].lstrip("-$@.")
    if len(value) < 3 or value.lower() in (name.lower(), keyword) or _names_a_secret(value):
        return False  # token=token, "password": "Password", "input_token": "next_token"
    words = _WORDS.findall(name)
    if keyword == "token" and len(words) > 1 and words[-2].lower() in _NOT_CREDENTIAL_TOKENS:
        return False
    before = text[name_start - 1:name_start]
    if before == ":" or value.startswith("arn:") or _DOTTED.fullmatch(value):
        return False  # arn:aws:secretsmanager:...:secret:name, settings.token
    if _NUMBER.fullmatch(value) and len(value) < (4 if "pass" in keyword or "pwd" in keyword
                                                  else 7):
        return False  # max_token = 512, token = -1, HAVE_PASSWD: 1 (a PIN still goes)
    if _COLOR.fullmatch(value):
        return False  # Token: "#d8dee9" in a syntax theme
    if m.start("bare") < 0:
        # A quoted literal is a secret unless it is a piece of a longer string
        # (`"Token: " + tok + "!"`).
        return value == value.strip()
    after = text[end:end + 3].lstrip(" ")[:1]
    if after in ("(", "[") or value[0] == "!":
        return False  # env::var("TOKEN"), getenv("X"), YAML's !vault
    if m.group("sep") == b":" and (after == "|" or (before == "{" and after == "}")):
        return False  # private_key: Ed25519PrivateKey | None, f"{token:02x}"
    if not _WORD.fullmatch(value):  # digits or symbols: a literal
        return True
    # A bare word is a literal in env files and URLs; elsewhere a variable, a type or prose.
    sep = text[m.start("sep"):m.end("sep")]
    # Judged on the keyword as written, which redacting text before it cannot change.
    written = text[m.start("kw"):m.end("kw")]
    env_style = written.isupper() and (
        sep == "=" or (sep == ":" and "_" in text[max(0, m.start("kw") - 1):m.end("kw")]))
    tight = sep == "=" and m.end("kw") == m.start("sep") and m.end("sep") == start
    return env_style or (tight and text[end:end + 1] in ("", "\n", "\r", "&"))


def _connection(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    return not _names_a_secret(text[start:end])  # user:password@, SAS_NAME:SAS_KEY@


def _cli(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    return _random2(text, m, start, end) and not _names_a_secret(text[start:end])


# --- rules -----------------------------------------------------------------------------------

# A lookbehind placed after the leading literal (`ghp_(?<![\w-]ghp_)`) checks the character
# before a token without costing re its fast literal scan, which a leading lookbehind would.
_END = r"(?![A-Za-z0-9_-])"

_KEY_OWNERS = ("api", "access", "private", "signing", "encryption", "master", "auth", "client",
               "app")
_ASSIGN_HEADS: tuple[Head, ...] = (
    (("token",), "token"),
    (("secret",), r"secret(?:[_-]?key)?"),
    (("pass",), r"pass(?:w(?:or)?d|phrase|(?<=[_.-]pass))"),
    (("_pwd",), "_pwd"),
    (("key",), "key(?:" + "|".join(f"(?<={owner}{sep}key)" for owner in _KEY_OWNERS
                                  for sep in ("", "_", "-")) + ")"),
)
# Lowercase, since it runs on lowercased text. `\\*` lets keys and values sit in JSON-escaped
# strings (raw transcript lines): `"password": "x"` and `\"password\": \"x\"` alike; `\]?`
# takes `os.environ["DB_PASSWORD"] = "x"`. A bare value ends at `&name=` (URL query strings),
# not at any other `&` (`PASSWORD=Tr0ub4dor&3`).
_ASSIGN_TAIL = (
    r"(?:\\*[\"'])?\]?[ \t]*"
    r"(?P<sep>:[ \t]*[a-z_][\w.\[\], |]{0,40}?[ \t]+=(?!=)|:=|=>|=(?!=)|:(?![:/]|\\[nrt]))"
    r"[ \t]*"
    r"(?:\\*\"(?P<dq>[^\"\\\n]*)\\*\"|\\*'(?P<sq>[^'\\\n]*)\\*'"
    r"|(?P<bare>[^\s\"'`,;&\\()\[\]{}<>|]+(?:&(?>[^\s\"'`,;&\\()\[\]{}<>|=]+)(?!=))*))"
)

RULES: tuple[Rule, ...] = (
    _rule(
        "private_key",
        ((("private key",), r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"),),
        r"(?:(?P<body>(?:[^-]|-(?!----)){0,200000})-----END [A-Z0-9 ]{0,40}PRIVATE KEY"
        r"(?: BLOCK)?-----|(?P<tail>(?:(?:\s|\\[rn])+[A-Za-z0-9+/=]{16,})*))",
        check=_key_body,
    ),
    _rule("anthropic_api_key", ((("sk-ant-",), r"sk-ant-(?<![\w-]sk-ant-)"),),
          r"[A-Za-z0-9_-]{20,}" + _END, check=_random3),
    _rule("openai_api_key",
          ((("sk-",), r"sk-(?<![\w-]sk-)(?!ant-)(?:proj-|svcacct-|admin-|None-)?"),),
          r"[A-Za-z0-9_-]{20,}" + _END, check=_random3),
    _rule("github_token",
          ((("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
            r"gh[pousr]_(?<![\w-]gh[pousr]_)[A-Za-z0-9]{36,255}"),
           (("github_pat_",), r"github_pat_(?<![\w-]github_pat_)[A-Za-z0-9_]{30,255}")),
          _END),
    _rule("gitlab_token", ((("glpat-",), r"glpat-(?<![\w-]glpat-)"),),
          r"[A-Za-z0-9_-]{20,}" + _END, check=_random2),
    _rule("npm_token", ((("npm_",), r"npm_(?<![\w-]npm_)"),), r"[A-Za-z0-9]{36}" + _END,
          check=_random3),
    _rule("pypi_token", ((("pypi-AgE",), r"pypi-AgE(?<![\w-]pypi-AgE)"),),
          r"[A-Za-z0-9_-]{50,}" + _END),
    _rule("aws_access_key_id",
          ((("AKIA",), r"AKIA(?<![A-Za-z0-9]AKIA)"), (("ASIA",), r"ASIA(?<![A-Za-z0-9]ASIA)")),
          r"[A-Z0-9]{16}(?![A-Za-z0-9])"),
    _rule(
        "aws_secret_access_key",
        ((("secret",), r"aws_?secret_?(?:access_?)?key"),),
        r"(?:\\*[\"'])?[ \t]*(?::=|=>|=|:)[ \t]*(?:\\*[\"'])?"
        r"(?P<v>[a-z0-9/+]{40})(?![a-z0-9/+=])",
        lowercase=True, groups=("v",), check=_random2,
    ),
    _rule("google_api_key", ((("AIza",), r"AIza(?<![\w-]AIza)"),), r"[0-9A-Za-z_-]{35}" + _END),
    _rule("slack_token",
          ((("xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"), r"xox[abprs]-(?<![\w-]xox[abprs]-)"),),
          r"[0-9]+-[0-9A-Za-z-]{10,}" + _END),
    _rule("slack_webhook",
          ((("hooks.slack.com",), r"hooks\.slack\.com/(?:services|workflows|triggers)/"),),
          r"(?P<v>[A-Za-z0-9/_-]{20,})", groups=("v",)),
    _rule("stripe_key",
          ((("sk_live_", "sk_test_"),
            r"sk_(?:live|test)_(?<![\w-]sk_live_)(?<![\w-]sk_test_)[0-9A-Za-z]{16,}"),
           (("rk_live_", "rk_test_"),
            r"rk_(?:live|test)_(?<![\w-]rk_live_)(?<![\w-]rk_test_)[0-9A-Za-z]{16,}"),
           (("whsec_",), r"whsec_(?<![\w-]whsec_)[0-9A-Za-z]{24,}")),
          _END, check=_random2),
    _rule("huggingface_token", ((("hf_",), r"hf_(?<![\w-]hf_)"),), r"[A-Za-z0-9]{30,}" + _END,
          check=_random2),
    # A numeric bot id, a colon and 35 characters, which in practice start with AA; in API URLs
    # the token follows `/bot`.
    _rule("telegram_bot_token", (((":AA",), r":AA(?<=[0-9]:AA)"),), r"[A-Za-z0-9_-]{33}" + _END,
          before=r"(?:(?<![\w:])|(?<=bot))[0-9]{8,10}\Z"),
    _rule("jwt", ((("eyJ",), r"eyJ(?<![\w-]eyJ)"),),
          r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*" + _END),
    # The password may hold `?` (so may any non-ASCII character, which the bytes show as `?`).
    _rule("connection_string_password", ((("://",), "://"),),
          r"[^\s:@/?#\"'`\\<>]*:(?P<pw>[^\s/#\"'`\\<>]+)@(?=[A-Za-z0-9\[_-])",
          groups=("pw",), check=_connection),
    _rule(
        "authorization_header",
        ((("authorization",), "authorization"),),
        r"(?:\\*[\"'])?[ \t]*[:=][ \t]*(?:\\*[\"'])?(?:basic|token|bot|apikey)"
        r"[ \t]+(?P<v>[a-z0-9._~+/=-]{8,})",
        lowercase=True, groups=("v",), check=_random2,
    ),
    _rule("bearer_token", ((("bearer",), "bearer"),), r"[ \t]+(?P<v>[a-z0-9._~+/-]{16,}=*)",
          lowercase=True, groups=("v",), check=_random2),
    # `curl -u user:pw`, `--password pw`; `--password=pw` is an assignment.
    _rule(
        "cli_password",
        ((("curl", "wget"), r"(?:curl|wget)\b[^\n|;&]{0,200}?[ \t](?:-u|--user|--http-user)[ \t=]*"
          r"[\"']?[^\s:\"']+:"),
         (("pass", "token", "secret", "key"),
          r"--(?:pass(?:word|wd)?|token|secret|api-key|client-secret)[ \t]+[\"']?")),
        r"(?P<v>[^\s\"'`-][^\s\"'`]*)",
        lowercase=True, groups=("v",), check=_cli,
    ),
    _rule("secret_assignment", _ASSIGN_HEADS, _ASSIGN_TAIL, lowercase=True,
          groups=("dq", "sq", "bare"), check=_assignment),
)


_RANK = {rule.name: i for i, rule in enumerate(RULES)}
_BIG = 1 << 62


# --- prefilter -------------------------------------------------------------------------------

# Rarest first, as measured on Claude Code transcripts and markdown notes.
_RARITY = "qzjxvwyk/f_.bghm-:ulpcdriaonste "


def _build_prefilter(keywords: list[str]) -> tuple[re.Pattern[bytes], dict[bytes, frozenset[str]]]:
    """One regex that finds every keyword from its rarest character, and what each hit means.

    `k(?<=tok)en` finds `token` but only stops at `k`. A hit consumes the rest of its keyword,
    which could hide a keyword that starts inside it; such keywords are added to the hit's
    meaning, so the set of keywords found is never smaller than the set present.
    """
    rank = {c: i for i, c in enumerate(_RARITY)}
    # Each character that anchors a keyword makes re stop wherever it occurs, so keywords share
    # anchors where they can: a character another keyword already uses costs nothing more.
    chosen = {k: min(range(len(k)), key=lambda i, k=k: rank.get(k[i], len(rank)))
              for k in keywords}
    for _ in range(4):
        for keyword in keywords:
            taken = {other[chosen[other]] for other in keywords if other != keyword}
            chosen[keyword] = min(range(len(keyword)), key=lambda i, k=keyword: (
                k[i] not in taken, rank.get(k[i], len(rank))))
    anchors = {k: (at, k[at:]) for k, at in chosen.items()}

    def hides(outer: str, inner: str) -> bool:
        at, hit = anchors[outer]
        inner_at = anchors[inner][0]
        for shift in range(len(hit)):  # inner's anchor sits `shift` into outer's hit
            offset = at + shift - inner_at  # inner's start, relative to outer's start
            if all(outer[offset + i] == c for i, c in enumerate(inner)
                   if 0 <= offset + i < len(outer)) and (shift or outer != inner):
                return True
        return False

    meaning: dict[bytes, set[str]] = {}
    by_first: dict[str, list[str]] = {}
    for keyword, (at, hit) in anchors.items():
        meaning.setdefault(hit.encode(), set()).update(
            k for k in keywords if k == keyword or hides(keyword, k))
        alternative = re.escape(hit[1:])
        if at:
            alternative = f"(?<={re.escape(keyword[:at + 1])})" + alternative
        by_first.setdefault(hit[0], []).append(alternative)
    source = "|".join(re.escape(first) + "(?:" + "|".join(dict.fromkeys(alts)) + ")"
                      for first, alts in by_first.items())
    return re.compile(source.encode()), {hit: frozenset(ks) for hit, ks in meaning.items()}


_PREFILTER, _MEANING = _build_prefilter(
    sorted({k for rule in RULES for keywords, _ in rule.parts for k in keywords}))


_CHUNK = 4096


def _scan(text: str) -> list[tuple[int, int, int, str]]:
    if len(text) <= _CHUNK:
        return _scan_chunk(text)
    # Only private_key spans lines, so a long text is scanned in pieces cut at line ends: a
    # rule then runs on the pieces that hold its keywords, not on the whole text.
    found: list[tuple[int, int, int, str]] = []
    start = 0
    while start < len(text):
        cut = text.find("\n", start + _CHUNK) + 1 or len(text)
        found += [(a + start, b + start, rank, name)
                  for a, b, rank, name in _scan_chunk(text[start:cut])]
        start = cut
    if "PRIVATE KEY" in text:
        key = RULES[_RANK["private_key"]]
        _collect(text, key, _RANK["private_key"], key.pattern.finditer(text), b"", found)
    return found


def _scan_chunk(text: str) -> list[tuple[int, int, int, str]]:
    raw = text.encode("ascii", "replace")  # one byte per character: offsets stay the same
    folded = raw.lower()
    hits = set(_PREFILTER.findall(folded))
    if not hits:
        return []
    present: set[str] = set()
    for hit in hits:
        present |= _MEANING[hit]
    found: list[tuple[int, int, int, str]] = []
    for priority, rule in enumerate(RULES):
        haystack = folded if rule.lowercase else raw
        for keywords, part in rule.parts:
            if not keywords.isdisjoint(present):
                _collect(text, rule, priority, part.finditer(haystack), raw, found)
    return found


def _collect(text: str, rule: Rule, priority: int, matches: Iterator[re.Match[bytes]],
             raw: bytes, found: list[tuple[int, int, int, str]]) -> None:
    for m in matches:
        for group in rule.groups:
            start, end = m.span(group)
            if start >= 0:
                break
        if rule.before is not None:
            head = rule.before.search(raw, max(0, m.start() - 16), m.start())
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


def _apply(text: str, spans: list[tuple[str, int, int]]) -> tuple[str, list[tuple[int, int, int]]]:
    """The redacted text, and where each REDACTED landed: (offset in it, start, end in text)."""
    parts: list[str] = []
    marks: list[tuple[int, int, int]] = []
    last = length = 0
    for _, start, end in spans:
        parts.append(text[last:start])
        length += start - last
        marks.append((length, start, end))
        parts.append(REDACTED)
        length += len(REDACTED)
        last = end
    parts.append(text[last:])
    return "".join(parts), marks


def _to_text(start: int, end: int, marks: list[tuple[int, int, int]]) -> tuple[int, int]:
    """Map a span of the redacted text back to the text; a REDACTED it touches counts whole."""
    def char(at: int) -> tuple[int, int]:
        i = bisect_right(marks, (at, _BIG, _BIG)) - 1
        if i < 0:
            return at, at + 1
        out, left, right = marks[i]
        if at < out + len(REDACTED):
            return left, right
        return right + at - out - len(REDACTED), right + at - out - len(REDACTED) + 1

    return char(start)[0], char(end - 1)[1]


def _secrets(text: str) -> list[tuple[str, int, int]]:
    found = _scan(text)
    if not found:
        return []
    spans = _merge(found)
    # Rules look at the characters around a match, and redacting can change them (a token
    # glued to a key block only ends cleanly once the block is gone). Scan the lines that hold
    # a REDACTED again until nothing new turns up, so that redacting twice never changes more.
    # No rule but private_key crosses a line, and a key block does not depend on what
    # precedes it.
    for _ in range(4):
        redacted, marks = _apply(text, spans)
        more: list[tuple[int, int, int, str]] = []
        line_end = 0
        for at, _, _ in marks:
            if at < line_end:
                continue
            line_start = redacted.rfind("\n", 0, at) + 1
            line_end = redacted.find("\n", at + len(REDACTED))
            if line_end < 0:
                line_end = len(redacted)
            more += [(*_to_text(line_start + a, line_start + b, marks), rank, name)
                     for a, b, rank, name in _scan(redacted[line_start:line_end])]
        if not more:
            break
        spans = _merge(more + [(a, b, _RANK[name], name) for name, a, b in spans])
    return spans


def find_secrets(text: str) -> list[tuple[str, int, int]]:
    """(rule name, start, end) of each span that `redact` replaces, in text order."""
    return _secrets(text)


def redact(text: str) -> str:
    """Return text with every secret value replaced by REDACTED.

    >>> redact("export GITHUB_TOKEN=" + "ghp_" + "a1B2" * 9)
    'export GITHUB_TOKEN=[REDACTED]'

    Text with nothing to redact is returned as the same object.
    """
    spans = _secrets(text)
    return _apply(text, spans)[0] if spans else text
