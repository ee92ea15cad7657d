"""The version of the secrets rules, apart from them: a store checks it on every open, and
importing the rules compiles them.

Bump it whenever a rule in `solograph.text.secret_rules` changes: indexes store the version
their text was redacted with and re-clean older rows on open.
"""

RULES_VERSION = 3
