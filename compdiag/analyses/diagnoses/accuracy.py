"""Accuracy: compiled outputs that differ from eager beyond the tolerance (measured by the
accuracy checker, `run --check-accuracy` / `compdiag check`), at the first divergent node's user
line when the checker found it; failing that, an Inductor bug injector set to 'accuracy' in a
compile's configuration (a diagnosis from configuration, not a measurement).

Cost: the `accuracy` band plus the worst relative error (capped); a graph on which eager itself
is non-deterministic ranks lower, since part of the difference may not be the compiler's."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from compdiag.analyses.accuracy_stale import STALE_INPUT_FIX, stale_input_words, \
    updated_params_words
from compdiag.analyses.function_verdicts import (FUNCTION_EXPLANATIONS, FUNCTION_FIXES,
                                                   FUNCTION_REASONS, LOST_STATE_WHY,
                                                   after_lost_state, known_fix)
from compdiag.analyses.divergent_ops import op_frame, statement
from compdiag.analyses import dropped_words
from compdiag.analyses.baked_values import baked_cause, with_baked
from compdiag.analyses.check_causes import random_excuse, random_fix, random_where
from compdiag.analyses.consequences import Causes
from compdiag.analyses.custom_op_contract import contract_words
from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.divergent_ops import INTEGER_ROUNDING_FIX, STEP_EXPLANATION, STEP_FIX, \
    floor_division, integer_rounding, op_name, step_input
from compdiag.analyses.fixes import commands
from compdiag.analyses.duplicate_writes import duplicate_words
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses import numpy_random as NR
from compdiag.analyses.locate import locate
from compdiag.analyses.miscompile_fix import accuracy_fix
from compdiag.analyses.narrowing_words import narrowing_words, overflow_words
from compdiag.analyses.path_choice import path_choice
from compdiag.analyses.nonfinite_words import FIXES as NONFINITE_FIXES, nonfinite_kind
from compdiag.analyses.process_settings import (VALIDATION_EXPLANATION, VALIDATION_FIX,
                                                VALIDATION_OFF, distribution_built)
from compdiag.analyses.traced_scalars import (FOLDED_NAN, FOLDED_NAN_EXPLANATION, FOLDED_NAN_FIX,
                                              folded_nan_tests)
from compdiag.analyses.ranking import Cost
from compdiag.analyses.view_writes import view_write
from compdiag.formats.command_line import command_line

KIND = "accuracy"


@dataclass(frozen=True)
class AccuracyDetails(Details):
    output: str | None
    max_abs: float | None
    max_rel: float | None
    injected_bugs: dict[str, Any] = field(default_factory=dict)
    divergent_node: dict[str, Any] | None = None
    eager_nondeterministic: bool = False
    verdict: str | None = None  # a key of VERDICT_REASONS, or decided_at_trace (the source's)
    fp64: dict[str, Any] | None = None  # RMSE of eager and compiled against float64


@dataclass(frozen=True)
class InjectorDetails(Details):
    config: str
    value: Any


SPEC = KindSpec(KIND, title="accuracy mismatch", words=("accuracy mismatch", "accuracy mismatches"),
                # what it says for information: a graph it could not compare, a setting torch
                # changed for the process; neither is a mismatch
                info_words=("accuracy note", "accuracy notes"),
                style="bold red", tie=40,
                # accuracy's events: the max relative error, capped
                # a measured miscompile: silently wrong numbers, above every compile failure,
                # recompile limit or divergence that costs only speed (analyses/ranking.py)
                costs={"accuracy": Cost(905, per_event=0.5, cap=50), "numerics": Cost(190)},
                adjust={"nondeterministic": -200.0,  # eager itself differs run to run:
                        # below a compile failure, where a mismatch sat before it ranked first
                        "configured_only": -1.0,  # an injector in the config, nothing measured
                        # a branch Dynamo decided while tracing, read from the source: certain
                        # for the input it tests, not measured; just below a measured one
                        "decided_at_trace": -3.0},
                details=(AccuracyDetails, InjectorDetails),
                # the accuracy checker's own failure row repeats what it measured
                causes=(Causes(KIND, "failure", "the accuracy diagnosis reports it, with the "
                               "measured errors",
                               lambda effect, cause, ctx: effect.stage == "accuracy"
                               and ctx.has_accuracy_rows, same_finding=True),
                        # a failed check of the program's own that compares a compiled result
                        # --check-accuracy measured to differ from eager: the measured
                        # difference is the cause, the failed check its consequence
                        Causes(KIND, "program", "the program's own check failed on a compiled "
                               "result that differs from eager",
                               lambda effect, cause, ctx: getattr(effect.details, "accuracy",
                                                                  None) == "mismatch"
                               and isinstance(cause.details, AccuracyDetails)
                               and cause.severity == "problem"
                               and cause.details.verdict not in NEGATIVE),
                        # Python state the compiled call left otherwise than eager, then the
                        # program's exception outside compiled code (function_verdicts)
                        Causes(KIND, "program", LOST_STATE_WHY, after_lost_state),
                        # a setting's information note a failed check already names as its
                        # cause (distributions' validation turned off): the same finding
                        Causes("program", KIND, "the failed check names it as its cause",
                               lambda effect, cause, ctx: effect.severity == "info"
                               and bool(effect.reason) and effect.reason in cause.reason,
                               same_finding=True)))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


_INJECTOR_OP = re.compile(r"inject_(\w+?)_bug")


def _num(x: Any) -> str:
    return f"{x:.3g}" if isinstance(x, (int, float)) else "?"


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    return ((measured(ctx) or injected(ctx)) + folded_nan(ctx) + not_compared(ctx)
            + validation_off(ctx) + numpy_stream(ctx))


def numpy_stream(ctx: Any) -> list[Diagnosis]:
    """np.random traced into torch's generator (analyses/numpy_random.py): a problem where the
    program seeds NumPy (the seed silently does not apply), else information."""
    d = NR.numpy_draw(ctx) if ctx.compiles else None
    if d is None:
        return []
    seeded = NR.SEEDED.format(seed=d["seed"]) if d["seed"] else NR.UNSEEDED
    problem = bool(d["seed"]) and not d["broke"]
    return [Diagnosis(
        KIND, stage="dynamo", compile_id=None, severity="problem" if problem else "info",
        reason=NR.REASON.format(fn=d["fn"], lineno=d["lineno"], seeded=seeded),
        user_frame=ctx.frame(d["filename"], d["lineno"], d["line"], evidence="source"),
        explanation=NR.EXPLANATION, fix=NR.FIX,
        score=SPEC.score(KIND if problem else "info", 0, "decided_at_trace"),
        details=AccuracyDetails(output=None, max_abs=None, max_rel=None,
                                verdict="numpy_random_stream"))]


def folded_nan(ctx: Any) -> list[Diagnosis]:
    """A NaN self-comparison of a scalar the graph holds (analyses/traced_scalars.py)."""
    out = []
    for t in folded_nan_tests(ctx):
        out.append(Diagnosis(
            KIND, stage="dynamo", compile_id=None,
            reason=FOLDED_NAN.format(**t),
            user_frame=ctx.frame(t["filename"], t["lineno"], evidence="source"),
            explanation=FOLDED_NAN_EXPLANATION, fix=FOLDED_NAN_FIX.format(**t),
            score=SPEC.score(KIND, 0, "decided_at_trace", order=len(out)),
            details=AccuracyDetails(output=None, max_abs=None, max_rel=None,
                                    verdict="decided_at_trace")))
    return out


def validation_off(ctx: Any) -> list[Diagnosis]:
    """A program that compiled something and builds torch.distributions objects without
    `validate_args` (analyses/process_settings.py): information, at the first such line."""
    built = distribution_built(ctx) if ctx.compiles else None
    if built is None:
        return []
    return [Diagnosis(
        KIND, stage=None, compile_id=None, severity="info",
        reason=VALIDATION_OFF.format(cls=built["cls"], line=built["lineno"]),
        user_frame=ctx.frame(built["filename"], built["lineno"], evidence="call"),
        explanation=VALIDATION_EXPLANATION, fix=VALIDATION_FIX, score=SPEC.score("info"),
        details=AccuracyDetails(output=None, max_abs=None, max_rel=None))]


NOT_COMPARED_FIX = ("Compare this graph's result with eager yourself (for example both as "
                    "float32: `.float()`), and report the check's error to compdiag with "
                    "`{report}`.")


def not_compared(ctx: Any) -> list[Diagnosis]:
    """A graph --check-accuracy could not compare (the check itself raised): said, never left
    as "no problems found" for numbers nobody checked (issue 29 §4). Information: it is not a
    measured difference."""
    out = []
    for row in ctx.r.accuracy(ctx.run_id, not_compared=True):
        cid = row.get("compile_id")
        error = str((row.get("detail") or {}).get("error") or "an error")
        out.append(Diagnosis(
            KIND, stage="accuracy", compile_id=cid, severity="info",
            reason=f"--check-accuracy could not compare this graph with eager: {error[:200]}",
            user_frame=op_frame(ctx, cid, None, None),
            explanation="The accuracy check itself raised on this graph, so nothing it "
                        "computed was compared with eager: the run's other verdicts do not "
                        "cover it.",
            fix=NOT_COMPARED_FIX.format(
                report=command_line("report", ctx.run_id, store=ctx.store)),
            score=SPEC.score("info"),
            details=AccuracyDetails(output=None, max_abs=None, max_rel=None)))
    return out


# -- verdicts against the float64 reference (capture/accuracy.py judges each output as
# torchbench's same() does; these are the words for each) ----------------------------------------
# Verdicts that say the compiler is not to blame: reported below the measured mismatches.
# capture/accuracy_localise.AMPLIFIERS: a periodic op of a large, low-precision argument
AMPLIFIED_EXPLANATION = (" (its value, within the tolerance there, is rounded to a low "
                         "precision at a large magnitude, and {amp} turns that rounding into "
                         "an error beyond it: the precision is lost at this line, and shows "
                         "after {amp})")
NEGATIVE = ("ill_conditioned", "inf_nan_compiled_right", "compiled_more_accurate", "tf32")
# An ok row (same() passed) is still reported when its verdict explains a visible difference
# (issue 29 §4: a check that compared values differing beyond fp64 noise is never "no
# problems found"; same() passes when compiled is the closer to float64).
REPORTED_WHEN_OK = ("ill_conditioned", "compiled_more_accurate", "tf32")
VERDICT_REASONS = {
    "miscompile": "compiled {out} differs from eager: compiled is {ratio} further from "
                  "the float64 reference than eager (relative RMSE {k} vs {e})",
    "ill_conditioned": "ill-conditioned, not a compiler bug: eager's and compiled's {out} are "
                       "both far from the float64 reference (relative RMSE eager {e}, compiled {k}; "
                       "rounding error amplified ~{amp}x)",
    "dtype_promotion": "dtype promotion differs: {out} is {eager_dtype} in eager, "
                       "{compiled_dtype} compiled{values}",
    "inf_nan": "only inf/nan positions differ in {out} ({n} positions; the finite values "
               "agree){side}",
    "eager_rejects": "compiled code accepted an input that eager rejects: eager raised "
                     "{eager_error}, the compiled graph returned a value ({out})",
    "tf32": "TF32, not a compiler bug: eager and compiled alike compute {out}'s float32 "
            "matmuls/convolutions in TF32 (relative RMSE against float64 {tf32_on} with TF32, "
            "{tf32_off} with it off)",
    "compiled_more_accurate": "compiled is closer to the float64 reference than eager, not a "
                              "compiler bug: {out} differs from eager (relative RMSE eager {e}, "
                              "compiled {k})",
    **FUNCTION_REASONS, **dropped_words.REASONS,
}
VERDICT_EXPLANATIONS = {
    "miscompile": "Eager agrees with the float64 reference and the compiled graph does not: "
                  "the difference is the compiler's",
    "ill_conditioned": "The computation amplifies rounding error about {amp}x (an estimated "
                       "condition number of at least {amp}: near-singular inputs or "
                       "catastrophic cancellation), so any reordering of the arithmetic, which "
                       "the compiler is allowed to do, changes the result by about that much; "
                       "in {dtype} neither result is reliable, and the compiler is not to blame",
    "dtype_promotion": "The compiled graph returns another dtype than eager for the same "
                       "inputs: Inductor's type promotion for this op differs from eager's",
    "inf_nan": "Eager and compiled agree wherever both are finite; they differ only in where "
               "the result overflows or is undefined",
    "tf32": "On this GPU float32 convolutions run in TF32 by default "
            "(`torch.backends.cudnn.allow_tf32`), and matmuls do under "
            "`torch.set_float32_matmul_precision('high')`: ten mantissa bits, about 1e-3 "
            "relative error where float32 gives 1e-7. The check ran eager again with TF32 off "
            "and its distance from float64 fell by {tf32_ratio}x: the difference from a float64 "
            "reference is TF32's, in eager as much as in compiled code",
    "compiled_more_accurate": "Eager rounds in {dtype} where the compiled code keeps "
                              "higher-precision intermediates: the compiled result agrees with "
                              "the float64 reference within the tolerance and eager's does not, "
                              "so the difference is eager's rounding, not the compiler's",
    "eager_rejects": "On the program's own inputs eager raises at this op while the compiled "
                     "graph returns numbers: the compiled code dropped the op's check (an "
                     "index or shape check, a dtype check), so its result is undefined there; "
                     "a miscompile",
    **FUNCTION_EXPLANATIONS, **dropped_words.EXPLANATIONS,
}
VERDICT_FIXES = {
    "ill_conditioned": "Improve the conditioning, not the compiler: compute this step in "
                       "float64 (`.double()`), use a stable formulation (torch.linalg.solve "
                       "instead of multiplying by an inverse, torch.var instead of "
                       "E[x^2]-E[x]^2, logsumexp instead of log(sum(exp))), or regularise "
                       "near-singular inputs; compare results against a float64 reference, "
                       "not against eager.",
    # probes48c seg_overlay_any_uint8: `.to(torch.uint8)` after a uint8 `any` was dropped
    "dtype_promotion": "Compute the op at that line in another dtype and cast its result "
                       "to the one you want (its inputs `.to(torch.int32)` or `.float()`, then "
                       "`.to({eager_dtype})`; `.bool()` before any/all of an integer tensor): "
                       "a cast of the result alone can be dropped as a no-op, because the "
                       "traced graph believes the result has that type already. A compiled "
                       "dtype that differs from eager's is an Inductor type-promotion bug "
                       "worth reporting with a repro (`{minify}`).",
    "tf32": "Turn TF32 off where float32 accuracy matters, before the computation: "
            "`torch.backends.cudnn.allow_tf32 = False` (convolutions) and "
            "`torch.set_float32_matmul_precision('highest')` (matmuls); or compare with a "
            "tolerance TF32 meets (about 1e-2 relative). The compiler is not to blame.",
    "compiled_more_accurate": "Nothing to fix in the compiler: compare against a float64 "
                              "reference, not against eager; to make the compiled code round "
                              "like eager, set `torch._inductor.config.emulate_precision_casts "
                              "= True`.",
    "inf_nan_compiled_right": "Eager overflows (or divides by zero) in {dtype} where the "
                              "compiled code keeps higher-precision intermediates, like the "
                              "float64 reference; compute in float32 to avoid the overflow, "
                              "or set `torch._inductor.config.emulate_precision_casts = True` "
                              "to make compiled round like eager.",
    # (probes45e lorentz_hierarchy_acosh_far: the inputs were valid and finite; "check the
    # op's inputs' range" gave the user nothing to change, running the op in eager did)
    "inf_nan": "The compiled code overflows or produces NaN where eager does not, on the same "
               "inputs: a miscompile of this op (its generated code loses range eager keeps). "
               "Until it is fixed, run the op outside compiled code (a small function "
               "decorated with `@torch.compiler.disable`); {bisect} finds the pass "
               "responsible.",
    **FUNCTION_FIXES, **dropped_words.FIXES, **NONFINITE_FIXES,
}


def _ratio(e: float | None, k: float | None) -> str:
    if not e:
        return "much"
    return f"{k / e:.3g}x" if k is not None else "much"


def verdict_text(verdict: str, detail: dict[str, Any], out: str) -> tuple[str, str]:
    """The reason and explanation of one output's verdict (empty strings: no verdict)."""
    f64 = detail.get("fp64") or {}
    e, k = f64.get("eager_rel"), f64.get("compiled_rel")
    # in the dtype the output has (probes38f db_fp16_clamp_floor: eager's float16 `1e-10`
    # floor underflowed to 0, log10 gave -inf; the headline did not say float16)
    low = str(detail.get("dtype") or "").removeprefix("torch.")
    low = f" in {low}" if low in ("float16", "bfloat16") else ""
    side = {"compiled": f"; compiled matches the float64 reference, eager{low} does not",
            "eager": f"; eager matches the float64 reference, compiled{low} does not"}.get(
        detail.get("matches_fp64"), "")
    values = {True: " (the values agree after casting)", False: " (the values differ too)"}.get(
        detail.get("values_equal"), "")
    fields = {"out": out, "e": _num(e), "k": _num(k), "ratio": _ratio(e, k),
              "amp": _num(detail.get("amplification")), "n": detail.get("nonfinite_positions",
                                                                         "some"),
              "eager_dtype": detail.get("eager_dtype"), "values": values, "side": side,
              "compiled_dtype": detail.get("compiled_dtype"), "dtype": detail.get("dtype"),
              "eager_error": detail.get("eager_error"), "low": detail.get("rounded_to"),
              "fn": detail.get("function") or "the function", "why": detail.get("reason"),
              "call": detail.get("call"), "path": detail.get("compiled_path"),
              "attr": detail.get("attribute"), "eager_value": detail.get("eager"),
              "compiled_value": detail.get("compiled"), "items": detail.get("items"),
              "returned_as": detail.get("returned_as"),
              "unrun_line": (detail.get("unrun") or {}).get("lineno"),
              "unrun_code": str((detail.get("unrun") or {}).get("line") or "")[:60],
              "under": "".join(f" under torch.func.{t}" for t in detail.get("transforms") or [])}
    t32 = detail.get("tf32") if isinstance(detail.get("tf32"), dict) else {}
    on, off = t32.get("eager_rel"), t32.get("eager_rel_without_tf32")
    fields.update(tf32_on=_num(on), tf32_off=_num(off),
                  tf32_ratio=f"{on / off:.3g}" if on and off else "many")
    if verdict not in VERDICT_REASONS:
        return "", ""
    if fields["why"] is None:  # a verdict without a measured reason says nothing there
        return (VERDICT_REASONS[verdict].replace(" ({why})", "").format(**fields),
                VERDICT_EXPLANATIONS[verdict].format(**fields))
    return (VERDICT_REASONS[verdict].format(**fields),
            VERDICT_EXPLANATIONS[verdict].format(**fields))


def _modes(detail: dict[str, Any]) -> str:
    modes = detail.get("modes")
    return f" under {', '.join(modes)}" if isinstance(modes, list) and modes else ""


def _kind_of(verdict: str | None, detail: dict[str, Any]) -> str | None:
    if verdict == "inf_nan" and detail.get("matches_fp64") == "compiled":
        return "inf_nan_compiled_right"
    return nonfinite_kind(verdict, detail) or verdict


def measured(ctx: Any) -> list[Diagnosis]:
    """One diagnosis per compiled graph whose outputs differ from eager (or whose difference
    the float64 reference shows to be ill-conditioning), worded by its verdict."""
    by_cid: dict[str | None, list[dict[str, Any]]] = {}
    for a in ctx.r.accuracy(ctx.run_id):
        detail = a.get("detail") if isinstance(a.get("detail"), dict) else {}
        if not a.get("ok") or detail.get("verdict") in REPORTED_WHEN_OK:
            by_cid.setdefault(a.get("compile_id"), []).append(a)
    out = []
    for cid, rows in by_cid.items():
        bad = [r for r in rows if not r.get("ok")] or rows
        # a forward output that differs causes the gradients that differ: the headline's
        forward = [r for r in bad if not (r.get("detail") or {}).get("backward")]
        # wrong outright first (no verdict: probes40b argmax_ties_bf16_div's integer counts)
        worst = max(forward or bad, key=lambda a: (not (a.get("detail") or {}).get("verdict"),
                                                   float(a.get("max_rel") or 0)))
        detail = worst.get("detail") if isinstance(worst.get("detail"), dict) else {}
        node = detail.get("divergent_node") or next(
            (r["detail"].get("divergent_node") for r in rows
             if isinstance(r.get("detail"), dict) and r["detail"].get("divergent_node")),
            None) or {}
        nondet = any(isinstance(r.get("detail"), dict) and r["detail"].get(
            "eager_nondeterministic") for r in rows)
        bugs = ctx.injected_bugs(cid)
        verdict = detail.get("verdict")
        name = worst.get("output") or "?"
        reason, explanation = verdict_text(verdict, detail, name)
        if not reason:
            # "output 0" is the output's name already; an error the check could not measure
            # (integers have no relative error) is left out, never printed as "?"
            errors = ", ".join(f"{label} {_num(worst.get(key))}"
                               for label, key in (("max abs", "max_abs"), ("max rel", "max_rel"))
                               if isinstance(worst.get(key), (int, float)))
            reason = (f"compiled {name if name.startswith('output') else 'output ' + name} "
                      f"differs from eager" + (f": {errors}" if errors else ""))
            if detail.get("reason"):
                reason += f" ({detail['reason']})"
            explanation = "The compiled graph computed different numbers than eager beyond " \
                          "the tolerance"
        backward = bool(detail.get("backward"))
        # a step function's inputs, for the headline and the fix (one lookup of Dynamo's nodes)
        fed = step_input(ctx, cid, node) if node.get("node") and not node.get("shows_at") \
            else None
        undeclared, dropped, narrowed = "", False, ""  # (fixes of their own, below)
        floored = floor_division(node, verdict) if not fed else None
        viewed = view_write(ctx, cid, node) if verdict == "miscompile" and not fed else None
        if backward:
            reason = "backward: " + reason
        if node.get("node") and backward and node.get("backward"):
            reason += f"; first op whose backward differs: {node.get('op')} (node {node['node']})"
            explanation += f", first in the backward of node {node['node']}"
        elif (broken := contract_words(node)) is not None:  # a custom op broke a promise
            more, explanation, undeclared = broken
            reason += more
        elif node.get("node") and isinstance(node.get("dropped_copy"), dict):
            copy = node["dropped_copy"]
            line = (copy.get("user_frame") or {}).get("lineno")
            at = f" at line {line}" if line else ""
            reason += (f"; {node.get('op')} (node {node['node']}) reads {copy.get('op')} (node "
                       f"{copy.get('node')}{at}), a copy of the tensor it writes in place, and "
                       f"the compiled graph dropped the copy: it read the buffer it was "
                       f"writing")
            explanation = (f"Fed eager's value of the copy, the compiled {node.get('op')} "
                           "agrees with eager: the compiled code did not keep the copy apart "
                           f"from the tensor {node.get('op')} writes (a copy Inductor's "
                           "reinplacing can remove, pytorch#198031), so the op read values it "
                           "had already overwritten")
            dropped = True
        elif node.get("node") and isinstance(node.get("shows_at"), dict):
            shows = node["shows_at"]
            reason += (f"; computed wrongly by {node.get('op')} (node {node['node']}), fused "
                       f"into {shows.get('op')} (node {shows.get('node')}), the first output "
                       f"that differs")
            explanation += (f", first at node {shows.get('node')}. Fed eager's value of "
                            f"{node.get('op')} (node {node['node']}) and everything before "
                            f"it, the compiled {shows.get('op')} agrees with eager: the wrong "
                            f"numbers come from {node.get('op')}'s code inside the kernel it "
                            f"was fused into, where its value is never stored")
        elif (narrow := narrowing_words(node) or overflow_words(node, detail.get("dtype"))):
            more, explanation, narrowed = narrow
            reason += more
        elif node.get("node") and node.get("fresh_compile_agrees"):
            reason, explanation = stale_input_words(node, reason)
        elif node.get("node") and node.get("localised") is False:
            said = statement(node)
            reason += (f"; shows at node {node['node']} ({node.get('op')}), the op computing "
                       f"it" + (f" in `{said}`" if said else ""))
            explanation += "" if verdict in ("traced_wrong", "traced_accepts", "compiled_path",
                                             "changed_after_compile") else (
                f"; where it starts was not localised (the graph's pieces did not compile on "
                f"their own): the line is the op computing {name}")
        elif node.get("node"):
            op = node.get("op") + (f", {node['settings']}" if node.get("settings") else "")
            reason += f"; first divergent node {node['node']} ({op})"
            said = statement(node)
            if said:  # an op Dynamo made of the user's call (addcdiv_ -> div, fma, copy_)
                reason += f" of `{said}`"
            explanation += f", first at node {node['node']}"
            if node.get("amplified_by"):  # rounded here, beyond the tolerance after a sin/cos
                reason += f", rounded there and amplified by {node['amplified_by']}"
                explanation += AMPLIFIED_EXPLANATION.format(amp=node["amplified_by"])
            if fed:  # a step function: the divergence is its input's rounding, upstream
                reason += f", a step function fed by {fed}"
                explanation += STEP_EXPLANATION.format(op=node.get("op"), fed=fed)
            elif floored is not None:  # torch's own floating floor division (a known bug)
                reason, explanation = reason + floored.clause, explanation + floored.more
            elif viewed is not None:  # a write through a view that is not one-to-one
                reason, explanation = reason + viewed[0], explanation + "." + viewed[1][:-1]
        explanation += "."
        if backward and verdict != "modified_before_backward":
            explanation += (" This is the gradient the compiled backward computed in the "
                            "program's own backward(), compared with eager's for the same "
                            "incoming gradient" + _modes(detail) + ".")
        nf = node.get("user_frame") if isinstance(node.get("user_frame"), dict) else None
        if nondet:
            explanation += (" Eager itself is non-deterministic on this graph, so part of the "
                            "difference may not be the compiler's.")
        kind = _kind_of(verdict, detail)
        # the test that chose the path only the trace took (analyses/path_choice.py)
        chose = path_choice(ctx, detail) if verdict == "traced_other_path" else None
        fix = generic = accuracy_fix(ctx.run_id, ctx.argv, bugs, ctx.store,
                                     low="16" in f"{detail.get('dtype') or 16}{node.get('dtype')}",
                                     node=node, generated=str((ctx.code_row(cid) or {}).get(
                                         "filename") or "").startswith("<eval_with_key>"))
        if undeclared or narrowed:
            fix = undeclared or narrowed
        elif dropped:
            fix = dropped_words.DROPPED_COPY_FIX.format(op=node.get("op"),
                                          minify=commands(ctx.run_id, ctx.argv, ctx.store)[0])
        elif node.get("fresh_compile_agrees") and node.get("stale_input"):
            fix = STALE_INPUT_FIX.format(name=node["stale_input"])
        elif fed:
            fix = STEP_FIX.format(op=node.get("op"), fed=fed)
        elif floored is not None:
            fix = floored.fix
        elif viewed is not None:
            fix = viewed[2] + generic
        elif not verdict and integer_rounding(detail, worst.get("max_abs"), op_name(node)):
            fix = INTEGER_ROUNDING_FIX.format(op=op_name(node), dtype=detail[
                "dtype"].removeprefix("torch."), bisect=commands(ctx.run_id, ctx.argv,
                                                                  ctx.store)[1])
        elif kind in VERDICT_FIXES:
            minify, bisect = commands(ctx.run_id, ctx.argv, ctx.store)
            fix = known_fix(detail.get("eager_error")) + VERDICT_FIXES[kind].format(
                eager_dtype=detail.get("eager_dtype"), dtype=detail.get("dtype"),
                minify=minify, bisect=bisect, attr=detail.get("attribute"), out=name,
                fn=detail.get("function") or "the function",
                unrun_line=(detail.get("unrun") or {}).get("lineno"),
                test=f"at line {chose.lineno}" if chose else "above line {}".format(
                    (detail.get("unrun") or {}).get("lineno")))
        if fix == generic:  # an input's write-back differs: return the value instead
            fix = dropped_words.input_write_fix(name) + fix
        if detail.get("after_param_update") and not worst.get("ok"):
            # the check at the first call after the program updated parameters in place
            reason, explanation, fix = updated_params_words(
                detail["after_param_update"], bool(detail.get("freezing")), name, reason)
        cost = SPEC.score("numerics") if kind in NEGATIVE else SPEC.score(
            KIND, float(worst.get("max_rel") or 0), *(("nondeterministic",) if nondet else ()))
        dup = duplicate_words(node, name)
        if dup is not None:  # a write whose repeated indices leave the kept row undefined
            (reason, explanation, fix), cost = dup, SPEC.score(KIND, 1.0)
        # The check passed and eager is within the tolerance of the float64 reference: a
        # verdict to know, information (the results are not reliable to more digits than
        # that), never a problem on a correct program (probes26 acc_bf16_weights_upcast,
        # probes34d gp_regression_chol_ok); a pass by torchbench's float64 rule where eager
        # is far off (probes33f fp16_rmsnorm_serve: eager overflows) stays a problem.
        eager_rel = (detail.get("fp64") or {}).get("eager_rel")
        passed = all(r.get("ok") for r in rows) and (bool(detail.get("within_tolerance")) or (
            eager_rel is not None and eager_rel <= float(detail.get("tol") or 0.0)))
        if passed:
            reason = "within the tolerance, but " + reason
            cost = SPEC.score("info") + 1.0
        frame = chose or op_frame(ctx, cid, nf, node.get("op"))
        if verdict in ("changed_after_compile", "traced_wrong") and (
                baked := baked_cause(ctx, cid, verdict)):
            # the value baked in (analyses/baked_values.py), at the line that reads it
            reason, explanation, fix = with_baked(reason, explanation, baked)
            frame = ctx.frame(baked.filename, baked.lineno, evidence="source")
        # the check gate's own rule (analyses/accuracy.report): the same graphs excused
        drawn = None if passed else random_excuse(
            ctx.r, ctx.run_id, cid, [r for r in rows if not r.get("ok")] or rows)
        if drawn is not None:
            # Inductor drew the graph's random numbers itself (dropout, rand): compiled and
            # eager never see the same values, seed or no seed, so this difference says nothing
            # of the compiler (an information verdict with the way to compare, never a bug)
            measured_words = reason
            reason = (f"not comparable with eager: {name} depends on random numbers the "
                      f"compiled graph draws itself {random_where(drawn)} "
                      f"({drawn.get('target') or 'a random op'})")
            explanation = ("Inductor generates the graph's random numbers itself (torch."
                           "_inductor.config.fallback_random is off by default): compiled and "
                           "eager draw different values from the same seed, and everything "
                           "computed from them differs. What the check measured is that, not "
                           f"a wrong result: {measured_words}.")
            fix = random_fix(drawn)
            cost = SPEC.score("info") + 2.0
            if drawn.get("lineno") and drawn.get("filename"):
                frame = ctx.frame(drawn["filename"], drawn["lineno"], drawn.get("line"),
                                  evidence="fx_node")
        out.append(Diagnosis(
            KIND, stage="accuracy", compile_id=cid, reason=reason, user_frame=frame,
            explanation=explanation, fix=fix, score=cost, count=len(bad),
            severity="info" if drawn is not None or passed else "problem",
            details=AccuracyDetails(output=worst.get("output"), max_abs=worst.get("max_abs"),
                                    max_rel=worst.get("max_rel"), injected_bugs=bugs,
                                    divergent_node=node or None,
                                    eager_nondeterministic=nondet, verdict=verdict,
                                    fp64=detail.get("fp64"))))
    return out


def injected(ctx: Any) -> list[Diagnosis]:
    """An Inductor *_TESTING_ONLY injector set to 'accuracy' makes compiled code compute wrong
    numbers on purpose; each compile's inductor_config shows it."""
    by_key: dict[tuple, list[str]] = {}
    for cid in ctx.compiles:
        for key, value in ctx.injected_bugs(cid).items():
            if value == "accuracy":
                by_key.setdefault((key, value), []).append(cid)
    out = []
    for (key, value), cids in by_key.items():
        m = _INJECTOR_OP.search(key)
        op = m.group(1) if m else None
        frames: list[dict[str, Any]] = []
        for cid in cids:
            if op:
                frames += ctx.op_user_lines(cid, op)
        out.append(Diagnosis(
            KIND, stage="inductor_codegen", compile_id=cids[0],
            reason=f"Inductor bug injector {key}={value!r} was on: compiled {op or 'code'} "
                   "deliberately computes wrong values",
            user_frame=locate(ctx, cids[0], nodes=[frames]),
            explanation="This testing-only config makes Inductor's C++ codegen emit a wrong "
                        f"{op or 'op'} (x + 1) so that accuracy tooling can be tested; every "
                        "compile with it on returns wrong numbers. Found in the compile's "
                        "inductor_config, not by comparing outputs.",
            fix=f"Unset it: `torch._inductor.config.{key} = None`.",
            score=SPEC.score(KIND, 0, "configured_only"), compile_ids=tuple(cids),
            details=InjectorDetails(config=key, value=value)))
    return out
