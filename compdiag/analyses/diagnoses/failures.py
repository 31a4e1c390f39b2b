"""Failures: an exception that escaped a compile stage (or compiled code at run time), filed
by stage, at the user's line, with the way to narrow it down (bisect, then minify).

The failure that ended the program ranks as a crash, above everything; the others in the
`failure` band, in the order they happened. A recompile-limit failure is the recompiles kind's
(it names the guard); one that repeats a graph break or an accuracy mismatch is folded into
that diagnosis by explain (FOLDS there)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from compdiag.analyses.context import is_recompile_limit
from compdiag.analyses.diagnoses.graph_breaks import graph_break_fix
from compdiag.analyses.diagnoses.recompiles import marked_dynamic_failure
from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.gb_registry import gb_registry
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.ranking import BANDS
from compdiag.formats.user_code import frames_in
from compdiag.ingest import parsers as P

KIND = "failure"


@dataclass(frozen=True)
class FailureDetails(Details):
    exc_type: str | None
    fatal: bool
    injected_bugs: dict[str, Any] = field(default_factory=dict)
    function: str | None = None


STAGE_TEXT = {
    "dynamo": "Dynamo failed while tracing the Python code into a graph.",
    "aot": "AOTAutograd failed while functionalising/partitioning the traced graph.",
    "inductor_lowering": "Inductor failed while lowering the graph to its IR.",
    "inductor_codegen": "Inductor failed while generating kernel code.",
    "kernel_compile": "A kernel Inductor generated failed to compile (C++/Triton compiler).",
    "runtime": "The compiled code failed while running.",
    "accuracy": "The compiled code computed different results than eager.",
}
INJECTED = ("An Inductor *_TESTING_ONLY bug injector was on ({names}); it makes Inductor emit "
            "broken code on purpose. Unset it.")
FULLGRAPH = ("fullgraph=True (or torch._dynamo.config.error_on_graph_break) turned a graph "
             "break into an error. {fix} Or drop fullgraph=True to accept the break.")
DYNAMO_RAISED = ("The traced code raised while Dynamo ran it on fake tensors: check that the "
                 "line runs in eager (`torch.compiler.set_stance(\"force_eager\")`); a "
                 "shape/dtype error there is a bug in the code, a missing fake/meta kernel "
                 "(custom ops) needs `register_fake`.")
# Per stage: what to try first, before bisect and minify.
FIRST_STEP = {
    "runtime": "Check whether backend='aot_eager' runs it correctly (if it does, the bug is in "
               "Inductor's generated code).",
    "inductor_lowering": "Confirm it is Inductor: backend='aot_eager' should compile it.",
    "inductor_codegen": "Confirm it is Inductor: backend='aot_eager' should compile it.",
    "kernel_compile": "Confirm it is Inductor: backend='aot_eager' should compile it.",
}
COMPILER_STAGES = ("aot", "inductor_lowering", "inductor_codegen", "kernel_compile", "runtime")


@dataclass(frozen=True)
class RuntimeFix:
    """A known error of compiled code at run time: every word of `when` in torch's message."""
    when: tuple[str, ...]
    fix: str


RUNTIME_FIXES: tuple[RuntimeFix, ...] = (
    RuntimeFix(("overwritten by a subsequent run",),
               "A CUDA graph's output was read after a later replay of the same graph reused "
               "its memory (mode='reduce-overhead' keeps outputs in the graph's static pool "
               "until the next step). torch's two fixes: clone the output before the next call "
               "(`out = model(x).clone()`, outside torch.compile) if you keep it across calls, "
               "or call `torch.compiler.cudagraph_mark_step_begin()` before each model "
               "invocation so cudagraph_trees knows a new iteration starts."),
)
# Kernel compile failures that are not a Python error in generated code: the Triton/PTX/
# ptxas/MLIR toolchain or the GPU's limits refused the kernel. (words in torch's message, fix)
KERNEL_COMPILE_FIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("out of resource: shared memory",),
     "The kernel's block sizes or pipeline stages need more shared memory than the GPU has: "
     "lower them (`torch._inductor.config.triton.max_tiles`, fewer `num_stages` in a custom "
     "config), or avoid max-autotune's largest configs for this op."),
    (("out of resource",), "The kernel needs more GPU resources (registers, threads) than the "
     "GPU allows: smaller blocks or fewer warps, or compile this op without max-autotune."),
    (("too many resources requested for launch",), "The kernel uses too many registers per "
     "thread for its block size: fewer warps per block, or `maxnreg` in the Triton config."),
    (("ptxas",), "ptxas (CUDA's assembler) rejected the PTX Triton emitted: check that "
     "triton's bundled ptxas matches the driver (TRITON_PTXAS_PATH), then report it with the "
     "minified repro."),
    (("PassManager::run failed",), "Triton's MLIR lowering failed for this kernel: a Triton bug; "
     "report it with the minified repro, or compile without max-autotune for this op."),
)


def runtime_fix(message: str | None) -> str | None:
    text = message or ""
    return next((r.fix for r in RUNTIME_FIXES if all(w in text for w in r.when)), None)


def kernel_compile_fix(message: str | None) -> str | None:
    low = (message or "").lower()
    return next((fix for words, fix in KERNEL_COMPILE_FIXES
                 if all(w.lower() in low for w in words)), None)


def stage_explanation(stage: str, fatal: bool) -> str:
    text = STAGE_TEXT.get(stage, f"The {stage} stage failed.")
    return text + (" The exception ended the program." if fatal else "")


def commands(run_id: int, argv: list[str], store_arg: str) -> tuple[str, str]:
    """The minify and bisect command lines a fix names for this run."""
    script = " ".join(shlex.quote(a) for a in argv) or "SCRIPT"
    return (f"compdiag minify{store_arg} {run_id}",
            f"compdiag bisect{store_arg} {run_id} -- python {script}")


def failure_fix(stage: str, exc_type: str, one_line: str, *, run_id: int, argv: list[str],
                store_arg: str = "", injected: dict[str, Any] | None = None,
                gb_type: str = "", debug: str = "", line: str = "", message: str = "") -> str:
    minify, bisect = commands(run_id, argv, store_arg)
    parts = []
    if injected:
        parts.append(INJECTED.format(names=", ".join(f"{k}={v!r}" for k, v in injected.items())))
    if stage == "dynamo":
        if exc_type == "Unsupported":
            parts.append(FULLGRAPH.format(fix=graph_break_fix(gb_type, one_line, debug, line,
                                                              [])))
        else:
            parts.append(DYNAMO_RAISED)
            parts.append(f"Narrow it down: `{bisect}`.")
    elif stage in COMPILER_STAGES:
        text = f"{one_line}\n{message}"
        known = (runtime_fix(text) if stage == "runtime" else
                 kernel_compile_fix(text) if stage == "kernel_compile" else None)
        if known:
            parts.append(known)
        elif stage in FIRST_STEP:
            parts.append(FIRST_STEP[stage])
        parts.append(f"Find the culprit: `{bisect}`; then shrink the graph to a standalone "
                     f"repro: `{minify}`.")
    else:
        parts.append(f"Narrow it down with `{bisect}` and `{minify}`.")
    return " ".join(parts)


_INNER_EXC = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Failed|Unsupported|"
                        r"Interrupt)):\s*(.+)$", re.M)
_GOT = re.compile(r"got (\w+)\((['\"])(.+?)\2\)")
_GB_URL = re.compile(r"/gb/(gb\d{4})\.html", re.I)


def one_line(exc_type: str | None, message: str | None, traceback: str | None) -> str:
    """The failure in one line, the real error rather than Dynamo's wrapper around it."""
    msg = (message or "").strip()
    got = _GOT.search(traceback or "")
    if got and "fake tensor" in msg:
        return f"{exc_type}: {got.group(1)}: {got.group(3)[:300]}"
    # Dynamo's wrappers ("backend='inductor' raised:") hide the real error on a later line.
    if traceback and (not msg or "raised:" in msg or msg.endswith(":")):
        inner = [m for m in _INNER_EXC.finditer(traceback)]
        if inner:
            m = inner[-1]
            return f"{m.group(1).split('.')[-1]}: {m.group(2).strip()[:300]}"
    head = f"{exc_type}: " if exc_type and exc_type not in msg else ""
    return (head + P.first_line(msg, 300)).strip()


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    out = []
    rows = ctx.failures
    for idx, f in enumerate(rows):
        if is_recompile_limit(f):
            continue  # the recompiles kind reports it, with the guard that kept failing
        cid = f["compile_id"]
        fatal = ctx.crashed and idx == len(rows) - 1
        tb = f.get("traceback") or ""
        frame = ctx.user_frame({"filename": f.get("filename"), "lineno": f.get("lineno"),
                                "line": f.get("line")}, frames_in(tb), cid=cid)
        one = one_line(f.get("exc_type"), f.get("message"), f.get("traceback"))
        code_m = _GB_URL.search(tb)
        gb = code_m.group(1).upper() if code_m else None
        injected = ctx.injected_bugs(cid)
        fix = failure_fix(f["stage"], f.get("exc_type") or "", one, run_id=ctx.run_id,
                          argv=ctx.argv, store_arg=ctx.store_arg, injected=injected,
                          gb_type=(gb_registry().get(gb or "", {}).get("Gb_type")
                                   or f.get("message") or ""),
                          debug=P.debug_context(tb), line=frame.line or "",
                          message=f"{f.get('message') or ''}\n{tb[-4000:]}")
        expl = stage_explanation(f["stage"], fatal)
        marked = marked_dynamic_failure(ctx, f)
        if marked is not None:  # the line that specialised a dimension marked dynamic
            frame, more, fix = marked
            expl = f"{expl} {more}"
        if gb and f.get("exc_type") == "Unsupported":
            more = P.parse_graph_break(tb)["explanation"] or gb_registry().get(gb, {}).get(
                "Explanation")
            expl = (expl + " " + (more or "")).strip()
        score = BANDS["crash"] if fatal else BANDS[KIND]
        out.append(Diagnosis(KIND, stage=f["stage"], compile_id=cid, reason=one,
                             user_frame=frame, explanation=expl, fix=fix,
                             score=score - idx * 0.01, gb_code=gb,
                             details=FailureDetails(exc_type=f.get("exc_type"), fatal=fatal,
                                                    injected_bugs=injected,
                                                    function=ctx.fn_name(cid))))
    return out
