"""What the program told torch.compile to do instead of compiling, kind `stance` (issue 29 §3:
no silent end), and a stance that made a compiled graph stale (skip_guard_eval_unsafe).

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
                tie=95, costs={"stance": Cost(500), "stale": Cost(905)},
                details=(StanceDetails,))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


# the stance in a recorded call's arguments: `'eager_on_recompile'`, `stance='force_eager'`
_STANCE = re.compile(r"^(?:stance=)?['\"](\w+)['\"]")


# probes40f stance_skip_guards_temperature, blind: after a warm-up, a timed loop under
# `set_stance(skip_guard_eval_unsafe=True)` swept `model.temperature`, a Python float the graph
# baked in as a constant; only the guards that tell cache entries apart are checked under the
# stance, so the 1.0 graph ran for every value (compiled 0.1338, eager 0.1218) and explain
# said "0 problems". The evidence: the stance's call, a `guarded == value` guard of a compiled
# graph on a Python attribute or global, and the user's code assigning that name after it.
SKIP_GUARDS = "skip_guard_eval_unsafe"
STALE_REASON = ("stale graph: set_stance(skip_guard_eval_unsafe=True) at line {lineno} skips "
                "the guard `{guard} == {value}`, and line {changed} changes {name}: the graph "
                "compiled for {value} runs for every value, with no recompile and no error")
STALE_EXPLANATION = (
    "Under skip_guard_eval_unsafe, a compiled function checks only the guards that tell its "
    "cache entries apart (here not {guard}), so a Python value the graph baked in as a "
    "constant is no longer compared: when the program changes it, the old graph runs and "
    "returns what it computed for the old value. torch's set_stance documents the risk "
    "(\"silently producing incorrect results\"); --check-accuracy replays each graph on its "
    "own inputs, which it matches, so only this guard shows it.")
STALE_FIX = ("Leave guard evaluation on while {name} changes: drop `skip_guard_eval_unsafe=True` "
             "(or set it only around calls that keep {name} fixed). To keep the stance, make "
             "the value a tensor the graph reads at run time instead of a Python constant "
             "(`self.register_buffer(\"{short}\", torch.tensor({value}))` and `.fill_(v)` to "
             "change it), or warm up on every value before setting the stance.")
# a guarded Python value: an attribute of an object (`L['self'].temperature`) or a global
# (`G['SCALE']`); its last name is what the user's code assigns
_ATTR = re.compile(r"^(?:L|G)\[['\"]\w+['\"]\](?:\.\w+|\[['\"]\w+['\"]\]|\[\d+\])*$")
_LAST = re.compile(r"(?:\.(\w+)|\[['\"](\w+)['\"]\])$")


def _changed_at(lines: list[str], name: str, after: int) -> int | None:
    """The first line after `after` that assigns `name` (`x.name = `, `name = `)."""
    # a statement that assigns it (`model.temperature = t`, `SCALE = 2`), not a keyword
    # argument (`model(x, temperature=t)`)
    assign = re.compile(rf"^\s*(?:[\w.\[\]'\"]*\.)?{re.escape(name)}\s*[-+*/]?=(?!=)")
    for i, text in enumerate(lines[after:], start=after + 1):
        code = text.split("#", 1)[0]
        if assign.search(code):
            return i
    return None


def _stale(ctx: Any, call: dict[str, Any]) -> Diagnosis | None:
    from compdiag.formats.guard_source import in_user_spelling

    lines = ctx.source_lines(call.get("filename")) or []
    lineno = int(call.get("lineno") or 0)
    for cid in sorted(ctx.compiles, key=str):
        for guarded, value in ctx.r.guard_values(ctx.run_id, cid).items():
            last = _LAST.search(guarded or "")
            if (not _ATTR.match(guarded or "") or last is None or value is None
                    or value.startswith(("<", "torch."))):
                continue
            name = last.group(1) or last.group(2)
            if name == "training":
                continue  # a module's train/eval flag: torch raises when that guard fails
            changed = _changed_at(lines, name, lineno)
            if changed is None:
                continue
            guard = in_user_spelling(guarded)
            return Diagnosis(
                KIND, stage=None, compile_id=cid,
                reason=STALE_REASON.format(lineno=lineno, guard=guard, value=value,
                                           changed=changed, name=guard),
                user_frame=ctx.frame(call["filename"], lineno, call.get("line"), "source"),
                explanation=STALE_EXPLANATION.format(guard=guard),
                fix=STALE_FIX.format(name=guard, short=name, value=value),
                severity="problem", score=SPEC.score("stale"),
                details=StanceDetails(stance=SKIP_GUARDS))
    return None


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    if ctx.compiles:
        for data, call in ctx.recorded_calls("stance_set"):
            if f"{SKIP_GUARDS}=True" in str(data.get("value") or "") and call.get("filename"):
                found = _stale(ctx, call)
                if found is not None:
                    return [found]
        return []
    for data, call in ctx.recorded_calls("stance_set"):
        m = _STANCE.match(str(data.get("value") or ""))
        stance = m.group(1) if m else ""
        rule = STANCES.get(stance)
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
