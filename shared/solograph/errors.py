"""Domain errors. Each adapter (CLI, HTTP, MCP) translates these once."""


class SolographError(Exception):
    """Base of every error the core raises on purpose. `hint` names the next step."""

    code = "error"

    def __init__(self, message: str, *, hint: str = "", **fields: object) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        # What a client can act on besides the words (`available` sources, ...).
        self.fields = fields

    def to_dict(self) -> dict:
        out: dict[str, object] = {"error": self.code, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        out.update(self.fields)
        return out


class BadQuery(SolographError):
    code = "bad_query"


class BadPath(BadQuery):
    """A path given in a query that the file system refuses (a name too long, a loop of links,
    bytes the file system will not take): the query's fault, never the index's. The command
    line exits 2 for it, as for a bad argument."""

    code = "bad_path"
    exit_code = 2


class NotFound(SolographError):
    """What was asked for is not there: a page, a heading, a session, a video."""

    code = "not_found"


class UnknownProject(NotFound):
    code = "unknown_project"


class NotIndexed(SolographError):
    """The index itself is missing or empty: something has to be indexed first."""

    code = "not_indexed"


class ConfigError(SolographError):
    code = "config_error"


class StoreError(SolographError):
    code = "store_error"


class QueryTimeout(SolographError):
    code = "timeout"
