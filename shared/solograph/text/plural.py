"""Counts in words: `1 file`, `2 files`, the same in every summary and on every screen."""


def plural(n: int, word: str, many: str = "") -> str:
    """`n word`, with the plural (`many`, else `word` + s) for any n but 1."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"
