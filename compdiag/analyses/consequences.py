"""One mechanism for "this diagnosis is that one's consequence" (issue 29 §2).

A kind declares, in its KindSpec, the relations its diagnoses take part in: `Causes(cause,
effect, why, when)` says that a diagnosis of kind `effect` is the consequence of one of kind
`cause` when `when(effect, cause, ctx)` holds, from stored facts only (the same compile, the
same frame, the compile a wrapper split, the ranks a timeout waited on). explain
(analyses/explain.py) then folds each consequence under its cause, with torch's message for
it, and ranks the cause at least where its consequence would have ranked: a cause never ranks
below what it caused.

Relations name kinds by name and read typed details by field, so kinds still never import
each other; one kind may declare a relation between two others' diagnoses when the fact that
links them is its own (the program kind's exception that a fatal failure already reports)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from compdiag.analyses.diagnosis import Diagnosis
from compdiag.formats.compile_id import first_attempt


@dataclass(frozen=True)
class Causes:
    """A `cause`-kind diagnosis causes an `effect`-kind one when `when(effect, cause, ctx)`
    holds (ctx: the run's RunContext); `why` is said where the consequence is folded.
    `same_finding`: the effect is the cause's own finding reported again (the program's
    exception a failure already reports, the checker's row of a measured mismatch): folded,
    but the cause keeps its own, better informed cost."""

    cause: str
    effect: str
    why: str
    when: Callable[[Diagnosis, Diagnosis, Any], bool]
    same_finding: bool = False


@dataclass(frozen=True)
class Consequence:
    """A diagnosis folded under its cause, and the relation's words for why."""

    diagnosis: Diagnosis
    why: str
    same_finding: bool = False

    def to_json(self) -> dict[str, Any]:
        d = self.diagnosis
        return {"kind": d.kind, "stage": d.stage, "compile_id": d.compile_id,
                "reason": d.reason, "user_frame": d.user_frame.to_json(), "why": self.why,
                "same_finding": self.same_finding, "torch_message": d.torch_message}


def same_compile(a: Diagnosis, b: Diagnosis) -> bool:
    """a and b concern one compile (an attempt is its compile's)."""
    mine = {a.compile_id, first_attempt(a.compile_id)} - {None}
    theirs = set(b.compile_ids) | {first_attempt(c) for c in b.compile_ids}
    return bool(mine & theirs)
