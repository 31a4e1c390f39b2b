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

from compdiag.analyses.diagnoses.failures import commands
from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.ranking import score

KIND = "accuracy"


@dataclass(frozen=True)
class AccuracyDetails(Details):
    output: str | None
    max_abs: float | None
    max_rel: float | None
    injected_bugs: dict[str, Any] = field(default_factory=dict)
    divergent_node: dict[str, Any] | None = None
    eager_nondeterministic: bool = False


@dataclass(frozen=True)
class InjectorDetails(Details):
    config: str
    value: Any


REPORTED_FP_NOISE = ("fp16/bf16 differences within ~1e-2 are expected reordering, not a bug "
                     "(try torch._inductor.config.emulate_precision_casts = True)")
_INJECTOR_OP = re.compile(r"inject_(\w+?)_bug")


def accuracy_fix(run_id: int, argv: list[str], injected: dict[str, Any]) -> str:
    minify, bisect = commands(run_id, argv, "")
    out = ""
    if injected:
        out = ("An Inductor *_TESTING_ONLY bug injector was on (" +
               ", ".join(f"{k}={v!r}" for k, v in injected.items()) + "): unset it. ")
    return out + (f"Find the pass or kernel responsible with `{bisect}`, then `{minify}` for a "
                  f"repro; {REPORTED_FP_NOISE}.")


def _num(x: Any) -> str:
    return f"{x:.3g}" if isinstance(x, (int, float)) else "?"


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    return measured(ctx) or injected(ctx)


def measured(ctx: Any) -> list[Diagnosis]:
    """One diagnosis per compiled graph whose outputs differ from eager."""
    by_cid: dict[str | None, list[dict[str, Any]]] = {}
    for a in ctx.r.accuracy(ctx.run_id):
        if not a.get("ok"):
            by_cid.setdefault(a.get("compile_id"), []).append(a)
    out = []
    for cid, rows in by_cid.items():
        worst = max(rows, key=lambda a: float(a.get("max_rel") or 0))
        detail = worst.get("detail") if isinstance(worst.get("detail"), dict) else {}
        node = next((r["detail"].get("divergent_node") for r in rows
                     if isinstance(r.get("detail"), dict) and r["detail"].get("divergent_node")),
                    None) or {}
        nondet = any(isinstance(r.get("detail"), dict) and r["detail"].get(
            "eager_nondeterministic") for r in rows)
        bugs = ctx.injected_bugs(cid)
        reason = (f"compiled output {worst.get('output') or '?'} differs from eager: max abs "
                  f"{_num(worst.get('max_abs'))}, max rel {_num(worst.get('max_rel'))}")
        if detail.get("reason"):
            reason += f" ({detail['reason']})"
        if node.get("node"):
            reason += f"; first divergent node {node['node']} ({node.get('op')})"
        nf = node.get("user_frame") if isinstance(node.get("user_frame"), dict) else None
        explanation = ("The compiled graph computed different numbers than eager beyond the "
                       "tolerance" + (f", first at node {node['node']}" if node.get("node")
                                      else "") + ".")
        if nondet:
            explanation += (" Eager itself is non-deterministic on this graph, so part of the "
                            "difference may not be the compiler's.")
        out.append(Diagnosis(
            KIND, stage="accuracy", compile_id=cid, reason=reason,
            user_frame=ctx.user_frame(nf, cid=cid), explanation=explanation,
            fix=accuracy_fix(ctx.run_id, ctx.argv, bugs),
            score=score(KIND, float(worst.get("max_rel") or 0),
                        *(("nondeterministic",) if nondet else ())),
            count=len(rows),
            details=AccuracyDetails(output=worst.get("output"), max_abs=worst.get("max_abs"),
                                    max_rel=worst.get("max_rel"), injected_bugs=bugs,
                                    divergent_node=node or None,
                                    eager_nondeterministic=nondet)))
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
            user_frame=ctx.user_frame(frames, cid=cids[0]),
            explanation="This testing-only config makes Inductor's C++ codegen emit a wrong "
                        f"{op or 'op'} (x + 1) so that accuracy tooling can be tested; every "
                        "compile with it on returns wrong numbers. Found in the compile's "
                        "inductor_config, not by comparing outputs.",
            fix=f"Unset it: `torch._inductor.config.{key} = None`.",
            score=score(KIND, 0, "configured_only"), compile_ids=tuple(cids),
            details=InjectorDetails(config=key, value=value)))
    return out
