"""What a diagnosis kind declares about itself, in its own module: its name, how views title,
count and colour it, the cost classes it ranks by, its tie order and its details types.

Ranking (analyses/ranking.py), the explain views, the TUI and docs/json.md's kinds list read
these specs, collected by the registry from every kind through the `compdiag_kinds` hook
(analyses/registry.py), so a new kind (built in or a plugin) is one module."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from compdiag.analyses.consequences import Causes
from compdiag.analyses.ranking import SHARED, Cost, score
from compdiag.formats.words import plural

# An undeclared kind (a plugin without a spec) goes after every declared one on a tie.
UNKNOWN_TIE = 10_000
# Every spec that declares cost classes or adjustments, as its module declared it: the
# classes a kind may borrow from another (ddp scores its breaks as graph breaks).
_DECLARED: list["KindSpec"] = []


@dataclass(frozen=True)
class KindSpec:
    """`title`: a panel's title ("graph break"); `words`: (one, many) for counts ("2 graph
    breaks"); `style`: the rich style of its panels and TUI rows; `tie`: its place among kinds
    of equal score (lower first); `costs`: the cost classes it files diagnoses under (besides
    ranking.SHARED), `adjust`: named facts that move a score; `details`: the Details types its
    diagnoses carry; `causes`: the relations (analyses/consequences.py) that make a diagnosis
    another's consequence, folded under it by explain; `info_words`: (one, many) for its
    information diagnoses where the title names a problem they are not (an accuracy check
    that could not compare is no "accuracy mismatch"); the title's words when None."""

    name: str
    title: str
    words: tuple[str, str]
    style: str = ""
    tie: int = UNKNOWN_TIE
    costs: Mapping[str, Cost] = field(default_factory=dict)
    adjust: Mapping[str, float] = field(default_factory=dict)
    details: tuple[type, ...] = ()
    causes: tuple[Causes, ...] = ()
    info_words: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.costs or self.adjust:
            _DECLARED.append(self)

    @classmethod
    def unknown(cls, name: str) -> "KindSpec":
        """What a kind without a spec is shown as: its name, no colour, last on a tie."""
        words = name.replace("_", " ")
        return cls(name, words, (words, words + "s"))

    def cost(self, cls: str) -> Cost:
        """Its own class `cls`, else a shared one, else another registered kind's (a kind may
        file a diagnosis under the class of the kind it stands in for: ddp's graph breaks)."""
        found = self.costs.get(cls) or SHARED.get(cls) or _borrowed("costs", cls)
        if found is None:
            raise ValueError(f"kind {self.name!r} has no cost class {cls!r} "
                             f"(its own: {', '.join(self.costs)}; shared: {', '.join(SHARED)})")
        return found

    def score(self, cls: str, events: float = 0, *adjustments: str, order: int = 0) -> float:
        """The score of a diagnosis of this kind filed under cost class `cls`
        (ranking.score); an adjustment it does not declare is the registered kind's that
        does."""
        borrowed = {a: _borrowed("adjust", a) for a in adjustments if a not in self.adjust}
        adjust = {**{a: v for a, v in borrowed.items() if v is not None}, **self.adjust}
        return score(self.cost(cls), events, adjust, *adjustments, order=order)

    def count(self, n: int, info: bool = False) -> str:
        """`n` diagnoses in words: "1 graph break", "3 graph breaks" (`info`: information
        diagnoses, in info_words where the kind declares them)."""
        return plural(n, *(self.info_words if info and self.info_words else self.words))

    def title_of(self, severity: str | None) -> str:
        """The title a diagnosis of this severity is listed under."""
        return self.info_words[0] if severity == "info" and self.info_words else self.title


def _borrowed(attr: str, name: str) -> Any:
    """A cost class or adjustment (`attr` costs | adjust) another declared kind declares:
    every kind module is imported (so its SPEC declared) before any kind scores, and the
    lowest tie wins as in the registry's order; no import of the registry, which imports
    this module."""
    return next((getattr(s, attr)[name] for s in sorted(_DECLARED, key=lambda s: s.tie)
                 if name in getattr(s, attr)), None)
