"""A checkpoint loaded into torch.compile's wrapper instead of the model, kind `state_dict`
(issue 29 §4: where bugs hide). The wrapper's keys carry `_orig_mod.`; a state dict saved from
the plain model matches none of them: with `strict=False` nothing is loaded and the program
runs on with the weights it had (probes30d finetune_strict_false: accuracy 0.603 against 0.789
uncompiled), with `strict=True` torch raises about keys the checkpoint never had. Capture keeps
each such load (capture/state_dict_loads.py: how many keys were given, how many lacked only the
prefix, the line); this kind says it at that line.

The rules are data: WORDS, by whether the load was strict."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.ranking import Cost
from compdiag.formats.code_text import calls_in

KIND = "state_dict"


@dataclass(frozen=True)
class StateDictDetails(Details):
    strict: bool
    given: int
    unprefixed: int
    loaded: int


# strict -> (reason, explanation); {n}, {given}, {example}, {module} filled in
WORDS = {
    False: ("load_state_dict(strict=False) into the compiled wrapper loaded {loaded} of "
            "{given} keys: {n} lack its `_orig_mod.` prefix (`{example}`), so {module} kept "
            "the weights it had",
            "torch.compile(model) returns an OptimizedModule whose own state_dict keys are "
            "`_orig_mod.<name>`. A checkpoint saved from the plain model matches none of "
            "them, and strict=False turns every mismatch into a silently skipped key: the "
            "program runs on, and computes, with the weights it had before the load."),
    True: ("load_state_dict into the compiled wrapper failed: {n} of {given} keys lack its "
           "`_orig_mod.` prefix (`{example}`)",
           "torch.compile(model) returns an OptimizedModule whose own state_dict keys are "
           "`_orig_mod.<name>`; a checkpoint saved from the plain model has the same names "
           "without the prefix, so torch reports every key as missing and unexpected."),
}
FIX = ("Load into the module torch.compile wrapped, not the wrapper: `{recv}._orig_mod."
       "load_state_dict(...)` here, or the original module's own `load_state_dict` (the "
       "wrapper shares its parameters, so the compiled calls see the weights); keep "
       "strict=True so a mismatch raises.")

SPEC = KindSpec(KIND, title="checkpoint into the wrapper", words=("checkpoint load",
                                                                  "checkpoint loads"),
                style="bold red", tie=46,
                # silently other weights than the program meant: as a change compiled code
                # ignores (unguarded, 902)
                costs={"state_dict": Cost(901)}, details=(StateDictDetails,))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    out: list[Diagnosis] = []
    seen: set[tuple[Any, ...]] = set()
    for data, call in ctx.recorded_calls("state_dict_load"):
        key = (call.get("filename"), call.get("lineno"))
        if key in seen or not data.get("unprefixed"):
            continue
        seen.add(key)
        strict = bool(data.get("strict"))
        reason, explanation = WORDS[strict]
        words = dict(n=data["unprefixed"], given=data.get("given"),
                     loaded=data.get("loaded", 0), example=data.get("example"),
                     module=data.get("module") or "the model")
        out.append(Diagnosis(
            KIND, stage=None, compile_id=None, reason=reason.format(**words),
            user_frame=ctx.frame(call.get("filename"), call.get("lineno"), call.get("line"),
                                 "source"),
            explanation=explanation, score=SPEC.score("state_dict"),
            fix=FIX.format(recv=_receiver(ctx.source_line(call.get("filename"),
                                                          call.get("lineno")))),
            details=StateDictDetails(strict=strict, given=int(data.get("given") or 0),
                                     unprefixed=int(data["unprefixed"]),
                                     loaded=int(data.get("loaded") or 0))))
    return out


def _receiver(line: str | None) -> str:
    """What the line calls `load_state_dict` on (`model`, `self.model`), for the fix."""
    return next((ast.unparse(c.func.value) for c in calls_in(line)
                 if isinstance(c.func, ast.Attribute) and c.func.attr == "load_state_dict"),
                "compiled")
