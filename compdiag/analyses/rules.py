"""The one matcher every rule table uses (graph-break, failure, cudagraph, perf-hint, fusion,
cache and recompile fixes): a rule names the words a text must hold.

Semantics, the same for every table: a `Words` matches a text when every word of `all` occurs
in it and, when `any` is given, at least one word of `any` does; words are substrings,
compared case-insensitively (torch capitalises its messages inconsistently across releases).
A table is a sequence of (Words, value) tried in order: the first match wins."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Words:
    all: tuple[str, ...] = ()
    any: tuple[str, ...] = ()

    def found_in(self, *texts: str | None) -> bool:
        """Whether the texts (joined by a space) hold the words."""
        low = " ".join(t for t in texts if t).lower()
        return (all(w.lower() in low for w in self.all)
                and (not self.any or any(w.lower() in low for w in self.any)))


def every(*words: str) -> Words:
    """A rule that needs all of `words`."""
    return Words(all=words)


def one_of(*words: str) -> Words:
    """A rule that needs one of `words`."""
    return Words(any=words)


def first(table: Iterable[tuple[Words, T]], *texts: str | None, default: T | None = None
          ) -> T | None:
    """The value of the first rule of `table` whose words the texts hold, else `default`."""
    return next((value for words, value in table if words.found_in(*texts)), default)


def found(words: Words | Iterable[str], *texts: str | None) -> bool:
    """Whether the texts hold `words` (a bare list of words: one of them)."""
    w = words if isinstance(words, Words) else Words(any=tuple(words))
    return w.found_in(*texts)
