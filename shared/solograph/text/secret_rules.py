"""The secrets redaction rules: what each kind of secret looks like, and the checks that tell
a real value from a placeholder, a variable name or prose. `solograph.text.secrets` runs them.

Rules are written for speed (see `solograph.text.secrets`): each alternative begins with a
literal and names the keywords that must occur for it to match.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

# Bump whenever a rule changes: indexes store it and re-clean old rows on open.
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


def is_placeholder(value: str) -> bool:
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
