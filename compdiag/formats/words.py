"""Counts in words a person reads: "1 compile", "2 compiles", never "1 compiled graphs"."""

from __future__ import annotations

_IRREGULAR = {"fix": "fixes", "match": "matches", "process": "processes", "query": "queries",
              "graph break": "graph breaks", "cudagraph skip": "cudagraph skips",
              "accuracy mismatch": "accuracy mismatches"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """`n word` with the word in its plural form unless n is 1 (`many` when it is irregular
    and not known here)."""
    if n == 1:
        return f"{n} {word}"
    if many is None:
        many = _IRREGULAR.get(word) or (word[:-1] + "ies" if word.endswith("y") and
                                         word[-2:-1] not in "aeiou" else word + "s")
    return f"{n} {many}"
