"""TypedDict for the answers. The standard library's: typing_extensions imports `inspect`,
a tenth of a read's start-up. (The MCP gateway turns them into pydantic's preferred kind when
it builds the tools' output schemas.)"""

from typing import NotRequired, TypedDict

__all__ = ["NotRequired", "TypedDict"]
