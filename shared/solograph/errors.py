"""Domain errors. Each adapter (CLI, HTTP, MCP) translates these once."""


class SolographError(Exception):
    """Base of every error the core raises on purpose. `hint` names the next step."""

    code = "error"

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def to_dict(self) -> dict:
        out = {"error": self.code, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        return out


class BadQuery(SolographError):
    code = "bad_query"


class UnknownProject(SolographError):
    code = "unknown_project"


class NotIndexed(SolographError):
    code = "not_indexed"


class ConfigError(SolographError):
    code = "config_error"


class StoreError(SolographError):
    code = "store_error"


class QueryTimeout(SolographError):
    code = "timeout"
