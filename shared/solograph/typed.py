"""TypedDict for the answers: before Python 3.12 pydantic (which turns them into the MCP tools'
output schemas) reads only typing_extensions' version, nested ones included."""

import sys

if sys.version_info >= (3, 12):
    from typing import NotRequired, TypedDict
else:
    from typing import NotRequired

    from typing_extensions import TypedDict

__all__ = ["NotRequired", "TypedDict"]
