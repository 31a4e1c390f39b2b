"""A diagnosis is a typed value: what went wrong, where in the user's code, why, and the fix.

Every kind (graph_break, recompile, failure, program, accuracy, cudagraph, fusion, perf,
divergence, cache) returns Diagnosis objects with a `details` object of its own type (its
KindSpec names the types); `to_json()` gives the keys DESIGN.md fixes for `explain --json`.
Readers use the typed fields (perf's limiters read `details.limit_hit`, not the reason's
wording)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

from compdiag.analyses.glossary import in_user_words
from compdiag.formats.addresses import without_addresses
from compdiag.formats.guard_source import in_user_spelling


@dataclass(frozen=True)
class UserFrame:
    """The user's own line a diagnosis points at (never a torch, library or stdlib frame),
    and the evidence it was found by (analyses/locate.py): `torch` (torch named it), `fx_node`
    (an FX node's stack trace), `call` (the call that triggered the compile), `source` (a line
    of the program a kind found, the setting its fix changes) or `def` (the compiled
    function's line, a fallback). Two frames of one line are equal whatever their evidence."""

    filename: str | None = None
    lineno: int | None = None
    line: str | None = None
    evidence: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, frame: Mapping[str, Any] | None) -> "UserFrame":
        frame = frame or {}
        return cls(frame.get("filename"), frame.get("lineno"), frame.get("line"),
                   frame.get("evidence"))

    def to_json(self) -> dict[str, Any]:
        out = {"filename": self.filename, "lineno": self.lineno, "line": self.line}
        if self.evidence:
            out["evidence"] = self.evidence
        return out

    def __bool__(self) -> bool:
        return bool(self.filename)


@dataclass(frozen=True)
class Details:
    """A kind's typed details. Fields named in `omit_none` are left out of the JSON when
    None (a key the documents carry only when it has a value); fields named in `internal` are
    for compdiag's own readers (perf's limiters) and never in the JSON, whose keys are fixed."""

    omit_none: ClassVar[tuple[str, ...]] = ()
    internal: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict[str, Any]:
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in self.internal or (value is None and f.name in self.omit_none):
                continue
            out[f.name] = _plain(value)
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.to_json() if hasattr(value, "to_json") else dataclasses.asdict(value)
    return value


@dataclass(frozen=True)
class Diagnosis:
    kind: str
    stage: str | None
    compile_id: str | None
    reason: str
    user_frame: UserFrame
    explanation: str | None
    fix: str
    score: float  # the rank key (analyses/ranking.py), higher first; not in the JSON
    details: Details = field(default_factory=Details)
    gb_code: str | None = None
    hints: tuple[str, ...] = ()
    count: int = 1
    compile_ids: tuple[str, ...] = ()
    # torch's own message, verbatim and whole (None: torch said nothing, e.g. compdiag's own
    # accuracy measurement); in the JSON as details.torch_message, on every kind.
    torch_message: str | None = None
    # "problem", or "info" for what torch does on purpose and needs no fix (one automatic-
    # dynamic recompile per new dimension): ranked last, listed apart.
    severity: str = "problem"
    # What this diagnosis caused, folded under it by explain (analyses/consequences.py's
    # Consequence: the diagnosis and why), each with torch's message for it.
    consequences: tuple[Any, ...] = ()
    # A diagnosis of the compile that made the cache entry this run's compile was served
    # from (analyses/cached_compiles.py): {run, compile_id, cache, key}; None otherwise.
    from_cache: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        # the headline in the user's words, whatever torch's phrasing (analyses/glossary.py)
        # and a guard's source as the user's code spells it (formats/guard_source.py)
        object.__setattr__(self, "reason", without_addresses(in_user_words(
            in_user_spelling(self.reason or ""))))
        # a repr's address differs in every process: the same diagnosis reads the same in
        # every run (formats/addresses.py); torch_message keeps it, verbatim
        object.__setattr__(self, "fix", without_addresses(in_user_spelling(self.fix))
                           if self.fix else self.fix)
        if self.explanation:
            object.__setattr__(self, "explanation",
                               without_addresses(in_user_spelling(self.explanation)))
        if not self.compile_ids and self.compile_id:
            object.__setattr__(self, "compile_ids", (self.compile_id,))
        object.__setattr__(self, "score", round(self.score, 3))
        object.__setattr__(self, "hints", tuple(self.hints))
        object.__setattr__(self, "compile_ids", tuple(self.compile_ids))

    def to_json(self) -> dict[str, Any]:
        """The diagnosis as `explain --json` shows it (DESIGN.md keys first)."""
        return {"kind": self.kind, "stage": self.stage, "compile_id": self.compile_id,
                "gb_code": self.gb_code, "reason": self.reason,
                "user_frame": self.user_frame.to_json(), "explanation": self.explanation,
                "fix": self.fix, "hints": list(self.hints), "count": self.count,
                "compile_ids": list(self.compile_ids), "severity": self.severity,
                "consequences": [c.to_json() for c in self.consequences],
                "details": {**self.details.to_json(), "torch_message": self.torch_message},
                **({"from_cache": self.from_cache} if self.from_cache else {})}
