"""What the program told torch.compile to do instead of compiling, kind `stance` (issue 29 §3:
no silent end).

`torch.compiler.set_stance("force_eager")` runs every compiled function in eager, and
"eager_on_recompile" runs in eager every call that would compile again: set before the first
compiled call, that is every call, since nothing is compiled yet (probes27
stance_eager_on_recompile: all ten requests ran eager, and explain said "0 compiles; no
problems found" with torch's logs and counters empty too). Capture keeps each set_stance call
of the user's code (capture/config_sets.py: a `compdiag:stance_set` record, its arguments and
line); a run that set such a stance and compiled nothing is told so at that line.

The rules are data: STANCES maps each stance to its words, fix and severity."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.ranking import Cost

KIND = "stance"


@dataclass(frozen=True)
class StanceDetails(Details):
    stance: str


@dataclass(frozen=True)
class Stance:
    reason: str
    explanation: str
    fix: str
    problem: bool  # a surprise (the program meant to compile) rather than what it asked for


STANCES = {
    "eager_on_recompile": Stance(
        reason="nothing was compiled: set_stance(\"eager_on_recompile\") at line {lineno} "
               "runs in eager every call that would compile, and before the first compile "
               "that is every call",
        explanation="The stance keeps the graphs compiled before it and runs in eager any call "
                    "that would compile a new one. Set before any compiled call, no graph "
                    "exists yet, so every call ran in eager: torch logs no compile, no "
                    "recompile and no warning.",
        fix="Warm up first: call the compiled function on every shape and mode it will see "
            "before `torch.compiler.set_stance(\"eager_on_recompile\")` (or set it in a `with` "
            "around the steady-state loop only), so those graphs are compiled and only "
            "unexpected inputs run in eager.", problem=True),
    "force_eager": Stance(
        reason="nothing was compiled: set_stance(\"force_eager\") at line {lineno} runs "
               "every compiled function in eager",
        explanation="Under this stance torch.compile's wrappers call the original functions; "
                    "the program ran as plain eager code, so there is nothing of "
                    "torch.compile's to diagnose.",
        fix="To diagnose the compiled program, run it without the stance (or with "
            "`torch.compiler.set_stance(\"default\")` around the calls to compile).",
        problem=False),
}

SPEC = KindSpec(KIND, title="compile stance", words=("stance", "stances"), style="yellow",
                tie=95, costs={"stance": Cost(500)}, details=(StanceDetails,))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


# the stance in a recorded call's arguments: `'eager_on_recompile'`, `stance='force_eager'`
_STANCE = re.compile(r"^(?:stance=)?['\"](\w+)['\"]")


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    if ctx.compiles:
        return []
    for rec in ctx.r.records(ctx.run_id, kind="compdiag:stance_set", with_payload=False):
        data = (rec.get("metadata") or {}).get("compdiag") or {}
        m = _STANCE.match(str(data.get("value") or ""))
        stance = m.group(1) if m else ""
        rule = STANCES.get(stance)
        call = data.get("call") if isinstance(data.get("call"), dict) else {}
        if rule is None or not call.get("filename"):
            continue
        lineno = call.get("lineno")
        return [Diagnosis(
            KIND, stage=None, compile_id=None, reason=rule.reason.format(lineno=lineno),
            user_frame=ctx.frame(call["filename"], lineno, call.get("line"), "source"),
            explanation=rule.explanation, fix=rule.fix,
            severity="problem" if rule.problem else "info",
            score=SPEC.score("stance" if rule.problem else "info"),
            details=StanceDetails(stance=stance))]
    return []
