"""Failures: an exception that escaped a compile stage (or compiled code at run time), filed
by stage, at the user's line, with the way to narrow it down (bisect, then minify).

The failure that ended the program ranks as a crash, above everything; the others in the
`failure` class, in the order they happened. A recompile-limit failure is the recompiles kind's
(it names the guard); one that repeats a graph break or an accuracy mismatch is folded into
that diagnosis by explain (FOLDS there). The program exception that ended the run
(program_exceptions) says where the failure surfaced in the user's code and the frame it was
raised in; a failure is fatal only when that exception came through compiled code.

A run-time failure's fix starts with the rule of RUNTIME_FIXES that matches torch's message
(data: one row per known error of compiled code at run time), then the way to narrow it down."""

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
from compdiag.analyses.ranking import score
from compdiag.analyses.summary import with_decisive
from compdiag.formats.user_code import frames_in, is_user_file
from compdiag.ingest import parsers as P

KIND = "failure"


@dataclass(frozen=True)
class FailureDetails(Details):
    exc_type: str | None
    fatal: bool
    injected_bugs: dict[str, Any] = field(default_factory=dict)
    function: str | None = None
    # The fatal failure: the user's line it surfaced at, the frame it was raised in (torch's
    # or generated code's) and the compiled code it came through.
    surfaced_at: dict[str, Any] | None = None
    raised_in: dict[str, Any] | None = None
    came_through: str | None = None
    omit_none = ("surfaced_at", "raised_in", "came_through")


@dataclass(frozen=True)
class RuntimeFix:
    """A known error of compiled code: every word of `when` in torch's message, at one of
    `stages` (run time unless said)."""
    when: tuple[str, ...]
    fix: str
    stages: tuple[str, ...] = ("runtime",)


RUNTIME_FIXES: tuple[RuntimeFix, ...] = (
    RuntimeFix(("overwritten by a subsequent run",),
               "A CUDA graph's output was read after a later replay of the same graph reused "
               "its memory (mode='reduce-overhead' keeps outputs in the graph's static pool "
               "until the next step). torch's two fixes: clone the output before the next call "
               "(`out = model(x).clone()`, outside torch.compile) if you keep it across calls, "
               "or call `torch.compiler.cudagraph_mark_step_begin()` before each model "
               "invocation so cudagraph_trees knows a new iteration starts."),
    RuntimeFix(("backward through the graph a second time",),
               "AOTAutograd makes one CompiledFunctionBackward node per compiled graph and frees "
               "its saved tensors after the first backward(), so a second backward() through "
               "another output of the same graph fails where eager keeps one node per op "
               "(pytorch/pytorch#118739): call backward() once on the sum of the outputs, or "
               "pass `retain_graph=True` to the first backward()."),
    RuntimeFix(("CompiledFunction", "is a view and is being modified inplace"),
               "An output of the compiled function is a view created inside AOTAutograd's "
               "CompiledFunction, and autograd forbids modifying it in place afterwards "
               "(pytorch/pytorch#90507): clone it first (`out = out.clone()`), or do the "
               "in-place op inside the compiled function."),
    RuntimeFix(("fail_on_recompile",),
               "The call needed a new graph, which `torch.compiler.set_stance("
               "\"fail_on_recompile\")` forbids; the guard in torch's message says what "
               "changed. Call it with inputs like the ones it was compiled for (same dtype, "
               "device, rank), mark the varying dimension dynamic before the first call, or set "
               "the stance only after warming up every variant."),
    RuntimeFix(("Recompiling function", "triggered by the following guard failure"),
               "`torch._dynamo.config.error_on_recompile = True` turned a recompile into an "
               "error; the guard in torch's message says what changed between the calls. Call "
               "the function with inputs like the first ones (same dtype, device, rank), mark "
               "a varying dimension dynamic, or unset error_on_recompile if the recompile is "
               "expected.", stages=("dynamo",)),
    RuntimeFix(("expected size", "stride"),
               "The compiled code checked a tensor's size/stride and it differed from what the "
               "graph was traced with: usually a custom op's fake (meta) kernel that returns "
               "another shape or layout than the real kernel; fix its `register_fake` and check "
               "it with `torch.library.opcheck`."),
)


def runtime_fix(message: str | None, stage: str = "runtime") -> str | None:
    text = message or ""
    return next((r.fix for r in RUNTIME_FIXES
                 if stage in r.stages and all(w in text for w in r.when)), None)


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
                gb_type: str = "", debug: str = "", line: str = "", message: str = "",
                torch_message: str | None = None) -> str:
    minify, bisect = commands(run_id, argv, store_arg)
    parts = []
    text = f"{one_line}\n{torch_message or ''}\n{message}"
    known = (kernel_compile_fix(text) if stage == "kernel_compile" else
             runtime_fix(text, stage))
    if known:
        parts.append(known)
    if injected:
        parts.append(INJECTED.format(names=", ".join(f"{k}={v!r}" for k, v in injected.items())))
    if stage == "dynamo":
        if exc_type == "Unsupported":
            parts.append(FULLGRAPH.format(fix=graph_break_fix(gb_type, one_line, debug, line,
                                                              [])))
        elif not known:
            parts.append(DYNAMO_RAISED)
            parts.append(f"Narrow it down: `{bisect}`.")
    elif stage in COMPILER_STAGES:
        if stage in FIRST_STEP and not known:
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


def one_line(exc_type: str | None, message: str | None, traceback: str | None,
             torch_message: str | None = None) -> str:
    """The failure in one line, the real error rather than Dynamo's wrapper around it, with
    the decisive lines torch put after its first (analyses/summary.py)."""
    return with_decisive(_first(exc_type, message, traceback), torch_message)


def _first(exc_type: str | None, message: str | None, traceback: str | None) -> str:
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


def gb_code_of(torch_message: str | None, traceback: str | None) -> str | None:
    """The GB code of the failure's own exception: the first in torch's message for it (a
    break torch hit "while handling this graph break" comes after it, its consequence), else
    the last in the traceback. A traceback chains the exceptions it was raised while handling
    ("During handling of the above exception, another exception occurred") before the
    failure's own, so its first code may be another break's (step_unsupported's GB4636 under
    the "cannot resume" GB0284 raised while handling it)."""
    own = _GB_URL.search(torch_message or "")
    if own:
        return own.group(1).upper()
    chained = _GB_URL.findall(traceback or "")
    return chained[-1].upper() if chained else None


def exception_frames(exc: dict[str, Any] | None) -> tuple[dict | None, dict | None]:
    """(the user's frame it surfaced at, the frame it was raised in) of a program exception."""
    frames = (exc or {}).get("frames") or []
    user = [f for f in frames if is_user_file(f.get("filename"))]
    return (user[-1] if user else None), (frames[-1] if frames else None)


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    out = []
    rows = ctx.failures
    exc = ctx.program_exception
    # The run ended in an exception of the program's own (not through compiled code): no
    # failure of a compile ended it.
    ended_here = exc is None or bool(exc.get("compiled"))
    for idx, f in enumerate(rows):
        if is_recompile_limit(f):
            continue  # the recompiles kind reports it, with the guard that kept failing
        cid = f["compile_id"]
        # An Unsupported torch caught itself (it skipped the frame) ended nothing.
        handled = f.get("exc_type") == "Unsupported" and ctx.torch_skipped(cid)
        fatal = ctx.crashed and idx == len(rows) - 1 and ended_here and not handled
        tb = f.get("traceback") or ""
        whole = f.get("torch_message") or (exc.get("message") if fatal and exc else None)
        frame = ctx.user_frame({"filename": f.get("filename"), "lineno": f.get("lineno"),
                                "line": f.get("line")}, frames_in(tb), cid=cid)
        one = one_line(f.get("exc_type"), f.get("message"), f.get("traceback"), whole)
        gb = gb_code_of(f.get("torch_message"), tb)
        injected = ctx.injected_bugs(cid)
        fix = failure_fix(f["stage"], f.get("exc_type") or "", one, run_id=ctx.run_id,
                          argv=ctx.argv, store_arg=ctx.store_arg, injected=injected,
                          gb_type=(gb_registry().get(gb or "", {}).get("Gb_type")
                                   or f.get("message") or ""),
                          debug=P.debug_context(tb), line=frame.line or "",
                          message=f"{f.get('message') or ''}\n{tb[-4000:]}",
                          torch_message=whole)
        expl = stage_explanation(f["stage"], fatal)
        marked = marked_dynamic_failure(ctx, f)
        if marked is not None:  # the line that specialised a dimension marked dynamic
            frame, more, fix = marked
            expl = f"{expl} {more}"
        if gb and f.get("exc_type") == "Unsupported":
            more = P.parse_graph_break(tb)["explanation"] or gb_registry().get(gb, {}).get(
                "Explanation")
            expl = (expl + " " + (more or "")).strip()
        surfaced, raised = exception_frames(exc) if fatal and exc else (None, None)
        out.append(Diagnosis(KIND, stage=f["stage"], compile_id=cid, reason=one,
                             user_frame=frame, explanation=expl, fix=fix,
                             score=score("crash" if fatal else KIND, order=idx), gb_code=gb,
                             torch_message=whole or f.get("message"),
                             details=FailureDetails(exc_type=f.get("exc_type"), fatal=fatal,
                                                    injected_bugs=injected,
                                                    function=ctx.fn_name(cid),
                                                    surfaced_at=surfaced, raised_in=raised,
                                                    came_through=(exc or {}).get("compiled")
                                                    if fatal else None)))
    return out
