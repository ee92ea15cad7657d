"""The checks that tell a real secret from a placeholder, a variable name, a type or prose.

A rule in `solograph.text.secret_rules` finds where a secret may be; a check here, given the
text, the match and the value's span, says whether it is one. Placeholders are rejected for
every rule before its own check runs.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

TYPE_CHECKING = False  # importing typing costs every start ~2 ms
if TYPE_CHECKING:
    from typing import Any

Check = Callable[[str, re.Match[bytes], int, int], bool]

_PLACEHOLDER = re.compile(
    r"your|example|placeholder|dummy|changeme|change[_-]me|redacted|fake|x{4,}"
    r"|(?:^|[_.-])xxx(?:$|[_.-])|\.\.\.|\*\*\*|[•…]|[_-]here$|<[^>\s]*>|^\[+[A-Za-z_ -]*\]+$"
    # Variables and templates: $VAR ${VAR} $(cmd) %VAR% %(name)s {name} {{ x }} `Bearer $TOKEN`
    r"|^\$[A-Za-z_{(]|^%[A-Za-z_(%]|^\{|\$\{|\{\{|(?:^|\s)\$[A-Za-z_]\w*$"
    # What kubectl prints in place of key material.
    r"|^DATA\+OMITTED$|^REDACTED$",
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


def random3(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    """Real keys are random: upper, lower and digits all occur (or it is long lowercase hex)."""
    value = text[start:end]
    return _classes(value) == 3 or _HEX.fullmatch(value.rsplit("-", 1)[-1]) is not None


def random2(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    return _classes(text[start:end]) >= 2


_B64_RUN = re.compile(r"[A-Za-z0-9+/]{20,}")


def key_body(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    """A block whose body is `...` is documentation; a cut-off block still leaks its start."""
    if m.start("body") < 0:
        return m.end("tail") - m.start("tail") >= 40
    return _B64_RUN.search(text, m.start("body"), m.end("body")) is not None


def basic_credentials(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    """`Basic` credentials are base64 of `user:password`; prose after `basic` is not."""
    try:
        decoded = base64.b64decode(text[start:end], validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


# A name is split into its words at separators and at case changes, never at digits:
# `DB_PASSWORD` and `myJwtSecret` name a secret; `hunter2pass` is one.
_PARTS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
_SECRET_WORDS = frozenset({"token", "secret", "password", "passwd", "pass", "pwd", "key",
                           "apikey", "passphrase", "credential", "credentials"})
_NAMEISH = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def names_a_secret(value: str) -> bool:
    """`next_token`, `DATABASE_PASSWORD`, `role-secret-key`, `myJwtSecret`: a variable, a
    setting or a label that names a secret, not the secret itself."""
    if " " in value:
        return any(part.lower() in _SECRET_WORDS
                   for word in value.split() for part in _PARTS.findall(word))
    if _NAMEISH.fullmatch(value) is None:
        return False
    parts = _PARTS.findall(value)
    # `api_key2` is a name; `Password1`, one word, is what people type as a password.
    return len(parts) > 1 and any(
        part.lower().rstrip("0123456789") in _SECRET_WORDS for part in parts)


# `next_token`, `page_token`, `eos_token`: pagination cursors, idempotency keys and tokenizer
# vocabulary, not credentials.
_NOT_CREDENTIAL_TOKENS = frozenset({
    "next", "prev", "previous", "page", "continuation", "pagination", "cursor", "sync", "resume",
    "lock", "change", "request", "idempotency", "input", "output", "start", "end", "stop",
    "first", "last", "max", "min", "num", "special", "eos", "bos", "pad", "unk", "sep", "cls",
    "mask",
})
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_NAME_TAIL = re.compile(r"[A-Za-z0-9_.$@-]*\Z")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_WORD = re.compile(r"[A-Za-z_]+")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_COLOR = re.compile(r"#[0-9A-Fa-f]{3,8}")


def assignment(text: str, m: re.Match[Any], start: int, end: int) -> bool:
    """Tell a literal secret from a label, a variable, a type or a small number."""
    value = text[start:end]
    keyword = text[m.start("kw"):m.end("kw")].lower()
    tail = _NAME_TAIL.search(text, max(0, m.start("kw") - 64), m.start("kw"))
    name_start = tail.start() if tail else m.start("kw")
    name = text[name_start:m.end("kw")].lstrip("-$@.")
    if len(value) < 3 or value.lower() in (name.lower(), keyword) or names_a_secret(value):
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


def not_a_name(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    return not names_a_secret(text[start:end])  # user:password@, SAS_NAME:SAS_KEY@


def cli_value(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    return random2(text, m, start, end) and not names_a_secret(text[start:end])


def password_value(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    """A password in a file format or a command line (netrc, pgpass, `mysql -p`): any word
    is one, but not a name, a short number or a single character."""
    value = text[start:end]
    if len(value) < 2 or names_a_secret(value):
        return False
    return not (_NUMBER.fullmatch(value) and len(value) < 4)


def named_value(text: str, m: re.Match[bytes], start: int, end: int) -> bool:
    """What follows a provider's name and `token`: a random value (letters and digits), not a
    name, a path or a URL."""
    value = text[start:end].rstrip(".")
    return (random2(text, m, start, start + len(value)) and any(c.isdigit() for c in value)
            and any(c.isalpha() for c in value) and "/" not in value.strip("/")
            and not names_a_secret(value))
