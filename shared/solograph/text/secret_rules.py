"""The secrets redaction rules: what each kind of secret looks like and where its value sits.
`solograph.text.secrets` runs them; `solograph.text.secret_checks` tells a real value from a
placeholder, a variable name or prose.

Rules are written for speed (see `solograph.text.secrets`): each alternative begins with a
literal where the secret has one, and names the keywords that must occur for it to match.
The formats follow the public gitleaks and detect-secrets catalogues.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from solograph.text import secret_checks as checks
from solograph.text.secret_checks import Check, is_placeholder
from solograph.text.secrets_version import RULES_VERSION

__all__ = ["RULES", "RULES_VERSION", "Rule", "is_placeholder"]


class Scan:
    """A bytes regex compiled on its first scan. Compiling every rule's regexes cost each
    process that redacts anything 42 ms (the hook among them, on any page it reads); a text
    wakes the few rules its keywords name."""

    __slots__ = ("source", "_regex")

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._regex: re.Pattern[bytes] | None = None

    def finditer(self, text: bytes) -> Iterator[re.Match[bytes]]:
        if self._regex is None:
            self._regex = re.compile(self.source)
        return self._regex.finditer(text)


@dataclass(frozen=True)
class Rule:
    """One kind of secret.

    `pattern` is the rule as one regex over the original text. `redact` runs the same source
    as `parts`: one bytes regex per alternative, each with the keywords (lowercase) that must
    occur for it to match; `lowercase` parts are written in lowercase and run on the lowercased
    text. `groups` name the groups that may hold the secret (the first that took part wins; 0 is
    the whole match). The `before_chars` characters right before a match must match `before`
    when set, and a whole-match secret then starts there. `check(text, match, start, end)` may
    still reject a value; placeholders are rejected for every rule.
    """

    name: str
    source: str  # of `pattern`, compiled when first asked for
    flags: int
    keywords: tuple[str, ...]
    lowercase: bool = False
    groups: tuple[int | str, ...] = (0,)
    check: Check | None = None
    before: re.Pattern[bytes] | None = None
    before_chars: int = 16
    parts: tuple[tuple[frozenset[str], Scan], ...] = field(
        default=(), repr=False, compare=False)

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.source, self.flags)


Head = tuple[tuple[str, ...], str]


def _rule(name: str, heads: tuple[Head, ...], tail: str = "", *, lowercase: bool = False,
          groups: tuple[int | str, ...] = (0,), check: Check | None = None,
          before: str | None = None, before_chars: int = 16) -> Rule:
    """heads: (keywords, regex) alternatives, each regex led by a literal; tail follows all."""
    whole = "(?P<kw>" + "|".join(head for _, head in heads) + ")" + tail
    flags = re.ASCII | (re.IGNORECASE if lowercase else 0)
    return Rule(
        name=name,
        source=whole,
        flags=flags,
        keywords=tuple(dict.fromkeys(k for keywords, _ in heads for k in keywords)),
        lowercase=lowercase,
        groups=groups,
        check=check,
        before=re.compile(before.encode()) if before else None,
        before_chars=before_chars,
        parts=_parts(heads, tail),
    )


def _parts(heads: tuple[Head, ...], tail: str) -> tuple[tuple[frozenset[str], Scan], ...]:
    """One regex per set of keywords: heads woken by the same keywords are one scan."""
    by_keywords: dict[frozenset[str], list[str]] = {}
    for keywords, head in heads:
        by_keywords.setdefault(frozenset(k.lower() for k in keywords), []).append(head)
    return tuple((keywords, Scan(("(?P<kw>" + "|".join(alike) + ")" + tail).encode()))
                 for keywords, alike in by_keywords.items())


# --- rules -----------------------------------------------------------------------------------

# A lookbehind placed after the leading literal (`ghp_(?<![\w-]ghp_)`) checks the character
# before a token without costing re its fast literal scan, which a leading lookbehind would.
_END = r"(?![A-Za-z0-9_-])"


def _prefixed(prefix: str, body: str, keyword: str | None = None) -> Head:
    """A token that starts with a literal prefix and is not the tail of a longer word."""
    literal = re.escape(prefix)
    return ((keyword or prefix.lower(),), f"{literal}(?<![\\w-]{literal}){body}")


_KEY_OWNERS = ("api", "access", "private", "signing", "encryption", "master", "auth", "client",
               "app", "account")
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
# A command-line value glued to its flag or after it: -pSECRET, -p 'SECRET', -p"SECRET".
_FLAG_VALUE = r"(?:'(?P<sq>[^'\n]*)'|\"(?P<dq>[^\"\n]*)\"|(?P<bare>[^\s'\"`;|&]+))"
_QUOTED = ("sq", "dq", "bare")
# Registry and platform tokens whose prefix says what they are.
_PROVIDER_HEADS: tuple[Head, ...] = (
    _prefixed("glpat-", r"[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{2}\.?[0-9a-z]{7,9})?"),
    *(_prefixed(p, r"[A-Za-z0-9_-]{20,}") for p in (
        "glptt-", "glrt-", "gldt-", "glcbt-", "gloas-", "glagent-", "glimt-")),
    _prefixed("shpat_", "[a-fA-F0-9]{32}"), _prefixed("shpss_", "[a-fA-F0-9]{32}"),
    _prefixed("shpca_", "[a-fA-F0-9]{32}"), _prefixed("shppa_", "[a-fA-F0-9]{32}"),
    _prefixed("hvs.", "[A-Za-z0-9_-]{90,}"), _prefixed("hvb.", "[A-Za-z0-9_-]{90,}"),
    _prefixed("lin_api_", "[A-Za-z0-9]{40}"),
    _prefixed("PMAK-", "[a-f0-9]{24}-[a-f0-9]{34}"),
    _prefixed("gsk_", "[A-Za-z0-9]{52}"),
    _prefixed("pplx-", "[A-Za-z0-9]{48}"),
    _prefixed("xai-", "[A-Za-z0-9]{80}"),
    _prefixed("r8_", "[A-Za-z0-9]{37}"),
    *(_prefixed(f"dp.{kind}.", "[A-Za-z0-9]{40,44}") for kind in ("pt", "st", "sa", "ct")),
    _prefixed("AGE-SECRET-KEY-1", "[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    _prefixed("sbp_", "[a-f0-9]{40}"),
    _prefixed("glsa_", "[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    _prefixed("glc_", "[A-Za-z0-9+/]{32,400}={0,2}"),
    _prefixed("dapi", "[a-f0-9]{32}(?:-[0-9])?"),
    _prefixed("sntrys_", "[A-Za-z0-9+/=_]{40,}"), _prefixed("sntryu_", "[a-f0-9]{64}"),
    _prefixed("NRAK-", "[A-Z0-9]{27}"),
    _prefixed("HRKU-AA", "[0-9A-Za-z_-]{58}"),
    _prefixed("pscale_", "(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}"),
    _prefixed("fo1_", "[A-Za-z0-9_-]{43}"),
    _prefixed("ntn_", "[0-9]{11}[A-Za-z0-9]{35}"),
    *(_prefixed(p, "[a-f0-9]{64}", "_v1_") for p in ("dop_v1_", "doo_v1_", "dor_v1_")),
    _prefixed("SG.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),  # SendGrid
    # The rest of gitleaks' catalogue whose tokens carry a prefix, in its order.
    _prefixed("A3-", "[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}"),
    _prefixed("ops_eyJ", "[A-Za-z0-9+/]{250,}={0,3}"),  # 1Password
    _prefixed("p8e-", "[A-Za-z0-9]{32}"),  # Adobe
    # Airtable's `pat` begins every `path`: its tokens wake on its name.
    (("airtable",), r"pat(?<![\w-]pat)[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    _prefixed("AKCp", "[A-Za-z0-9]{69}"), _prefixed("cmVmd", "[A-Za-z0-9]{59}"),  # Artifactory
    _prefixed("ATATT3", "[A-Za-z0-9_=-]{180,200}"),  # Atlassian
    _prefixed("ATCTT3", "[A-Za-z0-9_=-]{180,200}"),
    _prefixed("4b1d", "[A-Za-z0-9]{38}"),  # ClickHouse Cloud
    _prefixed("CLOJARS_", "[a-z0-9]{60}"),
    _prefixed("v1.0-", "[a-f0-9]{24}-[a-f0-9]{146}"),  # Cloudflare origin CA
    _prefixed("dnkey-", "[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}"),
    _prefixed("duffel_", "(?:test|live)_[A-Za-z0-9_=-]{43}"),
    _prefixed("dt0c01.", r"[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),  # Dynatrace
    _prefixed("EZAK", "[A-Za-z0-9]{54}"), _prefixed("EZTK", "[A-Za-z0-9]{54}"),  # EasyPost
    _prefixed("EAAC", "[A-Za-z0-9]{100,}"),  # Facebook
    _prefixed("figd_", "[A-Za-z0-9_-]{40,}"),  # Figma
    _prefixed("FLWSECK", "(?:_TEST)?-[a-h0-9]{12,32}(?:-X)?"),  # Flutterwave
    # New Relic insert keys wake on the provider's name: their prefix would make the prefilter
    # stop at every `-` (Frame.io's `fio-u-` is left out for that reason).
    *(_prefixed(p, r"[A-Za-z0-9_-]{20,}") for p in ("glft-", "glsoat-", "glffct-")),
    _prefixed("GR1348941", "[A-Za-z0-9_-]{20}"),  # GitLab runner registration
    _prefixed("eyJrIjoi", "[A-Za-z0-9]{70,400}={0,2}"),  # Grafana API key
    _prefixed("pat.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),  # Harness
    _prefixed("api_org_", "[A-Za-z]{34}"),  # Hugging Face organisation
    _prefixed("ico-", "[A-Za-z0-9]{32}"),  # Infracost
    _prefixed("s-s4t2", "(?:ud|af)-[a-f0-9]{64}", "s4t2"),  # Intra42
    _prefixed("key-", "[a-f0-9]{32}"), _prefixed("pubkey-", "[a-f0-9]{32}"),  # Mailgun
    _prefixed("sk.eyJ", r"[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}"),  # Mapbox secret
    _prefixed("NRJS-", "[a-f0-9]{19}"),  # New Relic
    (("relic",), r"NRII-(?<![\w-]NRII-)[A-Za-z0-9-]{32}"),
    _prefixed("secret_", "[A-Za-z0-9]{43}"),  # Notion, before ntn_
    _prefixed("API-", "[A-Z0-9]{26}"),  # Octopus Deploy
    _prefixed("sha256~", "[A-Za-z0-9_-]{43}"),  # OpenShift
    _prefixed("pnu_", "[A-Za-z0-9]{36}"),  # Prefect
    _prefixed("pul-", "[a-f0-9]{40}"),  # Pulumi
    _prefixed("rdme_", "[a-z0-9]{70}"),  # ReadMe
    _prefixed("rubygems_", "[a-f0-9]{48}"),
    _prefixed("tk-us-", "[A-Za-z0-9_-]{48}"),  # Scalingo
    _prefixed("xkeysib-", "[a-f0-9]{64}-[A-Za-z0-9]{16}"),  # Brevo (Sendinblue)
    *(_prefixed(f"sm_{kind}_", "[A-Za-z0-9]{16}") for kind in ("pat", "aat", "sat")),
    _prefixed("shippo_", "(?:live|test)_[a-fA-F0-9]{40}"),
    _prefixed("sgp_", "(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}"),  # Sourcegraph
    _prefixed("sq0atp-", "[A-Za-z0-9_-]{22,60}"), _prefixed("sq0csp-", "[A-Za-z0-9_-]{43}"),
    _prefixed("tfp_", "[A-Za-z0-9_.=-]{59}"),  # Typeform
    # Vercel's prefixed tokens: personal, integration, app access and refresh, API key.
    *(_prefixed(p, "[A-Za-z0-9_-]{24,}") for p in ("vcp_", "vci_", "vca_", "vcr_", "vck_")),
    _prefixed("AQVN", "[A-Za-z0-9_-]{35,38}"),  # Yandex
    _prefixed("ZXlKaGJHY2lPaU", "[A-Za-z0-9+/]{40,}={0,2}"),  # a base64-encoded JWT
)
# A line of a PuTTY key's base64, in a file or JSON-escaped in a transcript line.
_EOL = r"(?:\r?\n|(?:\\r)?\\n)"
_PPK_LINE = r"[a-z0-9+/=]{4,64}(?=\r?\n|\\[rn]|$)"
# Providers whose tokens have no prefix of their own (gitleaks finds them by the name).
_PROVIDERS = (
    "adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "atlassian", "confluence",
    "jira", "beamer", "bitbucket", "bittrex", "codecov", "cohere", "coinbase", "confluent",
    "contentful", "datadog", "discord", "doppler", "droneci", "dropbox", "etsy", "facebook",
    "fastly", "figma", "finicity", "finnhub", "flickr", "freshbooks", "gitter", "gocardless",
    "heroku", "hubspot", "intercom", "jfrog", "artifactory", "kraken", "kucoin",
    "launchdarkly", "mailchimp", "mailgun", "mattermost", "meraki", "messagebird", "netlify",
    "newrelic", "notion", "nytimes", "okta", "plaid", "rapidapi", "sendbird", "sentry", "snyk",
    "sonar", "squarespace", "sumologic", "terraform", "travis", "twilio", "twitch", "twitter",
    "typeform", "vercel", "zendesk",
    # Prefixed kinds the prefilter leaves out (Alibaba's LTAI, Dropbox's sl., Square's EAAA,
    # Yandex's t1. and YC, Frame.io's fio-u-) and other catalogue entries, by their name.
    "square", "yandex", "frameio", "frame.io", "maxmind", "authress", "brevo", "sendinblue",
    "mapbox", "cloudflare", "planetscale", "pulumi", "shopify", "postman", "grafana",
    "dynatrace", "sourcegraph", "octopus", "openshift", "scalingo", "shippo", "easypost",
    "duffel", "flutterwave", "clickhouse", "infracost", "prefect",
)
# Found at the credential's word (which other rules wake on too), the name looked for before.
_NAMED_HEADS: tuple[Head, ...] = (
    (("token",), "token"), (("key",), "key"), (("secret",), "secret"),
    (("pass",), "password"), (("credential",), "credential"))
_NAMED_BEFORE = ("(?i)(?<![a-z0-9])(?:" + "|".join(map(re.escape, _PROVIDERS))
                 + r")[a-z0-9_. \"':{-]{0,24}\Z")
_NAMED_TAIL = (
    r"s?\b(?:\\*[\"'])?[ \t]*(?:[:=,]>?|:=|->|[ \t]is[ \t]|[ \t]was[ \t])?[ \t]*"
    r"(?:\\*[\"'`])?(?P<v>[a-z0-9_+/=.-]{20,400})"
)
# A Discord bot token: the base64 of a 17-19 digit id (a shape of its own), a timestamp and an
# HMAC, joined by dots. It has no literal, so it is found from its middle (`.XXXXXX.`, then a
# look back at 23 token characters) near the words people write around one, and its id is
# checked by `before`.
_DISCORD_ID = (r"(?<![A-Za-z0-9_-])(?:[MNO][DTjz][AEIMQUYcgk][wxyz0-5]){5,6}"
               r"(?:[MNO][DTjz][AEIMQUYcgk]|[MNO][AQgw])?\Z")
_DISCORD = (r"\.[A-Za-z0-9_-]{6}\.(?<=[A-Za-z0-9_-]{23}\.[A-Za-z0-9_-]{6}\.)"
            r"[A-Za-z0-9_-]{27,38}")

RULES: tuple[Rule, ...] = (
    # A block cut off before its END (by `head`, by a limit) still leaks what it holds, armor
    # headers (`Version: GnuPG v2`, `Proc-Type:`) and all.
    _rule(
        "private_key",
        ((("private key",), r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"),),
        r"(?:(?P<body>(?:[^-]|-(?!----)){0,200000})-----END [A-Z0-9 ]{0,40}PRIVATE KEY"
        r"(?: BLOCK)?-----|(?:(?:\s|\\[rn])+[A-Z][A-Za-z-]{1,30}:[ \t][^\n\\]{0,200})*"
        r"(?P<tail>(?:(?:\s|\\[rn])+[A-Za-z0-9+/=]{16,})*))",
        check=checks.key_body,
    ),
    _rule("anthropic_api_key", ((("sk-ant-",), r"sk-ant-(?<![\w-]sk-ant-)"),),
          r"[A-Za-z0-9_-]{20,}" + _END, check=checks.random3),
    _rule("openai_api_key",
          ((("sk-",), r"sk-(?<![\w-]sk-)(?!ant-)(?:proj-|svcacct-|admin-|None-)?"),),
          r"[A-Za-z0-9_-]{20,}" + _END, check=checks.random3),
    _rule("github_token",
          ((("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
            r"gh[pousr]_(?<![\w-]gh[pousr]_)[A-Za-z0-9]{36,255}"),
           (("github_pat_",), r"github_pat_(?<![\w-]github_pat_)[A-Za-z0-9_]{30,255}")),
          _END),
    _rule("npm_token", ((("npm_",), r"npm_(?<![\w-]npm_)"),), r"[A-Za-z0-9]{36}" + _END,
          check=checks.random3),
    _rule("pypi_token", ((("pypi-AgE",), r"pypi-AgE(?<![\w-]pypi-AgE)"),),
          r"[A-Za-z0-9_-]{50,}" + _END),
    _rule("provider_token", _PROVIDER_HEADS, _END, check=checks.random2),
    # A Twilio API key sid is written beside the word `key`; looking for `sk` alone would
    # wake every rule that looks for `key` at each `ask` and `task`.
    _rule("twilio_api_key", ((("key",), r"SK(?<![\w-]SK)[0-9a-fA-F]{32}"),), _END,
          check=checks.random2),
    # Temporary key ids (ASIA) come with their secret and session token, whose names hold
    # `key` or `token`; looking for `asia` itself would stop the prefilter at every `a`.
    _rule("aws_access_key_id",
          ((("AKIA",), r"AKIA(?<![A-Za-z0-9]AKIA)"),
           (("key", "token", "credential"), r"ASIA(?<![A-Za-z0-9]ASIA)")),
          r"[A-Z0-9]{16}(?![A-Za-z0-9])"),
    # `aws configure set aws_secret_access_key VALUE` has no separator but a space.
    _rule(
        "aws_secret_access_key",
        ((("secret",), r"aws_?secret_?(?:access_?)?key"),),
        r"(?:\\*[\"'])?(?:[ \t]*(?::=|=>|=|:)[ \t]*|[ \t]+)(?:\\*[\"'])?"
        r"(?P<v>[a-z0-9/+]{40})(?![a-z0-9/+=])",
        lowercase=True, groups=("v",), check=checks.random2,
    ),
    _rule("google_api_key", ((("AIza",), r"AIza(?<![\w-]AIza)[0-9A-Za-z_-]{35}"),
                             _prefixed("ya29.", "[0-9A-Za-z_-]{30,}"),  # OAuth access token
                             _prefixed("GOCSPX-", "[0-9A-Za-z_-]{24,}")),  # OAuth client secret
          _END, check=checks.random2),
    _rule("slack_token",
          ((("xoxa-", "xoxb-", "xoxe-", "xoxp-", "xoxr-", "xoxs-"),
            r"xox[abeprs]-(?<![\w-]xox[abeprs]-)[0-9]+-[0-9A-Za-z-]{10,}"),
           _prefixed("xapp-", "[0-9]-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]{20,}")),
          _END),
    _rule("slack_webhook",
          ((("hooks.slack.com",), r"hooks\.slack\.com/(?:services|workflows|triggers)/"),),
          r"(?P<v>[A-Za-z0-9/_-]{20,})", groups=("v",)),
    # Webhook URLs whose path is the credential: Discord, Microsoft Teams.
    _rule("webhook_url",
          ((("/api/webhooks/",), r"/api/webhooks/(?<=discord\.com/api/webhooks/)"),
           (("/api/webhooks/",), r"/api/webhooks/(?<=discordapp\.com/api/webhooks/)"),
           (("webhook.office.com",), r"webhook\.office\.com/webhookb2/"),
           (("outlook.office.com",), r"outlook\.office\.com/webhook/")),
          r"(?P<v>[A-Za-z0-9@/_-]{40,400})", groups=("v",), check=checks.random2),
    # Twilio's auth token handed to the client by position: `Client("AC...", "<token>")`,
    # `require("twilio")(sid, "<token>")`.
    _rule("twilio_auth_token",
          ((("client(",), r"client\("), (("require(",), r"twilio\\*[\"']\)\(")),
          r"[ \t]*(?:\\*[\"']ac[0-9a-f]{32}\\*[\"']|[a-z_$][\w.$]{0,40})[ \t]*,[ \t]*"
          r"(?:[a-z_]\w{0,20}[ \t]*=[ \t]*)?\\*[\"'](?P<v>[0-9a-f]{32})\\*[\"']",
          lowercase=True, groups=("v",), check=checks.random2),
    # A GCP service-account key file names its key by id.
    _rule("gcp_private_key_id", ((("private_key_id",), "private_key_id"),),
          r"\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(?P<v>[0-9a-f]{40})(?![0-9a-z])",
          lowercase=True, groups=("v",)),
    # A PuTTY key file (.ppk): the lines after `Private-Lines:` are the key.
    _rule("putty_private_key", ((("private-lines:",), r"private-lines:[ \t]*[0-9]{1,3}"),),
          f"{_EOL}(?P<v>{_PPK_LINE}(?:{_EOL}{_PPK_LINE})*)",
          lowercase=True, groups=("v",)),
    # Terraform Cloud / Enterprise: 14 characters, `.atlasv1.`, 60 to 70 more.
    _rule("terraform_token", ((("atlasv1",), r"\.atlasv1\."),), r"[A-Za-z0-9_=-]{60,70}" + _END,
          check=checks.random2, before=r"(?<![A-Za-z0-9_-])[A-Za-z0-9]{14}\Z", before_chars=15),
    # Mailchimp: 32 hex digits, then the data centre (`-us21`).
    _rule("mailchimp_api_key", ((("key", "token", "secret", "mailchimp"),
                                  r"-us(?<=[0-9a-f]-us)[0-9]{1,2}"),), _END,
          before=r"(?<![A-Za-z0-9_-])[0-9a-f]{32}\Z", before_chars=33),
    # nuget.config: `<add key="ClearTextPassword" value="..." />`.
    _rule("nuget_password", ((("cleartextpassword",), r"cleartextpassword"),),
          r"\\*\"[ \t]+value=\\*\"(?P<v>[^\"\\\n]{4,200})\\*\"",
          lowercase=True, groups=("v",), check=checks.password_value),
    # Sidekiq Pro / Enterprise credentials for Bundler: `BUNDLE_GEMS__CONTRIBSYS__COM=a1:b2`.
    _rule("sidekiq_secret", ((("contribsys__com",), r"contribsys__com"),),
          r"\\*[\"']?[ \t]*(?:[:=]|=>)[ \t]*\\*[\"']?(?P<v>[0-9a-f]{8}:[0-9a-f]{8})",
          lowercase=True, groups=("v",)),
    _rule("stripe_key",
          ((("sk_live_", "sk_test_"),
            r"sk_(?:live|test)_(?<![\w-]sk_live_)(?<![\w-]sk_test_)[0-9A-Za-z]{16,}"),
           (("rk_live_", "rk_test_"),
            r"rk_(?:live|test)_(?<![\w-]rk_live_)(?<![\w-]rk_test_)[0-9A-Za-z]{16,}"),
           (("whsec_",), r"whsec_(?<![\w-]whsec_)[0-9A-Za-z]{24,}")),
          _END, check=checks.random2),
    _rule("huggingface_token", ((("hf_",), r"hf_(?<![\w-]hf_)"),), r"[A-Za-z0-9]{30,}" + _END,
          check=checks.random2),
    # A numeric bot id, a colon and 35 characters, which in practice start with AA; in API URLs
    # the token follows `/bot`.
    _rule("telegram_bot_token", (((":AA",), r":AA(?<=[0-9]:AA)"),), r"[A-Za-z0-9_-]{33}" + _END,
          before=r"(?:(?<![\w:])|(?<=bot))[0-9]{8,10}\Z"),
    _rule("discord_bot_token", ((("token", "discord", "bot", "client"), _DISCORD),),
          _END, check=checks.random2, before=_DISCORD_ID, before_chars=28),
    # Azure AD client secrets: three characters, a digit, `Q~`, then 31 to 34 more.
    _rule("azure_client_secret", ((("q~",), r"Q~(?<=[0-9]Q~)[A-Za-z0-9_~.-]{31,34}"),),
          r"(?![A-Za-z0-9_~.-])", check=checks.random2,
          before=r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]\Z"),
    # A SAS URL's signature (Azure storage, Service Bus): in a URL that names its version
    # (`sv=`) or an Azure host, or a SharedAccessSignature token. Other `sig=` parameters
    # (Google Books links) sign nothing secret.
    _rule("sas_signature", ((("sig=",), r"sig=(?<=[?&]sig=)"),),
          r"(?P<v>[A-Za-z0-9%+/=]{16,})", groups=("v",), check=checks.random2,
          before=r"(?:[?&]sv=[0-9]{4}-[0-9]{2}-[0-9]{2}|\.windows\.net/"
                 r"|SharedAccessSignature[ \t]+sr=)[^\s\"'<>]*\Z", before_chars=1000),
    _rule("jwt", ((("eyJ",), r"eyJ(?<![\w-]eyJ)"),),
          r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*" + _END),
    # The password may hold `?` (so may any non-ASCII character, which the bytes show as `?`).
    # A Sentry DSN's key (and legacy secret) sits where a user would: one scan finds both, as
    # every URL in a text would otherwise be scanned twice.
    _rule("connection_string_password", ((("://",), "://"),),
          r"(?:(?P<dsn>[0-9a-f]{32}(?::[0-9a-f]{32})?)@(?=[A-Za-z0-9])"
          r"|[^\s:@/?#\"'`\\<>]*:(?P<pw>[^\s/#\"'`\\<>]+)@(?=[A-Za-z0-9\[_-]))",
          groups=("dsn", "pw"), check=checks.not_a_name),
    # ~/.pgpass: host:port:database:user:password, one a line.
    _rule("pgpass_password",
          ((tuple(f":{port}:" for port in (*range(5432, 5440), 6432, 25060, 26257, "*")),
            r":(?:[0-9]{2,5}|\*):"),),
          r"[^\s:]{1,63}:[^\s:]{1,63}:(?P<v>[^\s:'\"]+)(?=$|[\s'\"])", groups=("v",),
          check=checks.password_value,
          before=r"(?<![^\s'\"])[A-Za-z0-9_.*\[\]-]{1,253}\Z", before_chars=254),
    # ~/.netrc: `machine HOST login USER password PASSWORD`, on one line or several.
    _rule("netrc_password",
          ((("pass",), r"machine[ \t]+(?:localhost|[^\s.:]+[.:][^\s]*)"),
           (("pass",), r"default(?=\s+(?:login|account)\s)")),
          r"(?:\s+(?:login|account|port|protocol)[ \t]+[^\s]+)*\s+password[ \t]+(?P<v>[^\s]+)",
          lowercase=True, groups=("v",), check=checks.password_value),
    # .npmrc: `//registry/:_authToken=...`, `:_auth=` (base64 user:password), `:_password=`.
    _rule("npmrc_auth", (((":_auth", ":_password"), r":_(?:authtoken|auth|password)"),),
          r"[ \t]*=[ \t]*[\"']?(?P<v>[^\s\"'#]+)", lowercase=True, groups=("v",),
          check=checks.password_value),
    # ~/.docker/config.json: `"auth": "<base64 of user:password>"`.
    _rule("docker_auth", ((('auth":',), r'auth"(?<="auth")'),
                          (('auth\\":',), r'auth\\"(?<=\\"auth\\")')),
          r'[ \t]*:[ \t]*\\*"(?P<v>[A-Za-z0-9+/]{8,}={0,2})\\*"', groups=("v",),
          check=checks.basic_credentials),
    # A kubeconfig user's key, base64 of a PEM block.
    _rule("kubeconfig_key", ((("client-key-data",), "client-key-data"),),
          r"(?:\\*\")?[ \t]*:[ \t]*(?:\\*[\"'])?(?P<v>[A-Za-z0-9+/]{20,}={0,2})", groups=("v",)),
    _rule(
        "authorization_header",
        ((("authorization",), "authorization"),),
        r"(?:\\*[\"'])?[ \t]*[:=][ \t]*(?:\\*[\"'])?(?:basic|token|bot|apikey)"
        r"[ \t]+(?P<v>[a-z0-9._~+/=-]{8,})",
        lowercase=True, groups=("v",), check=checks.random2,
    ),
    # `Basic <base64 of user:password>` wherever it is written.
    _rule("basic_credentials", ((("basic",), "basic"),), r"[ \t]+(?P<v>[a-z0-9+/]{8,}={0,2})",
          lowercase=True, groups=("v",), check=checks.basic_credentials),
    _rule("bearer_token", ((("bearer",), "bearer"),), r"[ \t]+(?P<v>[a-z0-9._~+/-]{16,}=*)",
          lowercase=True, groups=("v",), check=checks.random2),
    # `mysql -pSECRET` (the value glued to -p; `-p dbname` prompts), `sshpass -p SECRET`,
    # `docker login -p SECRET`. Case matters: `-P` is a port.
    _rule("command_password",
          ((("mysql", "mariadb"), r"(?:mysql|mariadb)[a-z]*\b[^\n|;&]{0,200}?[ \t]-p(?=\S)"),
           (("sshpass",), r"sshpass(?:[ \t]+-[a-oq-zA-Z][^\s]*)*[ \t]+-p[ \t]*"),
           (("docker",), r"(?:docker|podman)[ \t]+login\b[^\n|;&]{0,200}?[ \t]-p[ \t]+")),
          _FLAG_VALUE, groups=_QUOTED, check=checks.password_value),
    # `curl -u user:pw`, `--password pw`; `--password=pw` is an assignment.
    _rule(
        "cli_password",
        ((("curl", "wget"), r"(?:curl|wget)\b[^\n|;&]{0,200}?[ \t](?:-u|--user|--http-user)[ \t=]*"
          r"[\"']?[^\s:\"']+:"),
         (("pass", "token", "secret", "key"),
          r"--(?:pass(?:word|wd)?|token|secret|api-key|client-secret|account-key|sas-token)"
          r"[ \t]+[\"']?")),
        r"(?P<v>[^\s\"'`-][^\s\"'`]*)",
        lowercase=True, groups=("v",), check=checks.cli_value,
    ),
    # gitleaks' keyword rules: a provider's name, the word for its credential, and a value
    # that looks random (`my jira token is ...`, `"figma": {"token": "..."}`).
    _rule("named_provider_token", _NAMED_HEADS, _NAMED_TAIL, lowercase=True, groups=("v",),
          check=checks.named_value, before=_NAMED_BEFORE, before_chars=48),
    _rule("secret_assignment", _ASSIGN_HEADS, _ASSIGN_TAIL, lowercase=True,
          groups=("dq", "sq", "bare"), check=checks.assignment),
)
