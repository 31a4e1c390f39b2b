"""A failure's fix and explanation: the failure kind's, and the program kind's for an exception
that came through compiled code, by the compile stage that failed (the first step a user
takes for it, the minify/bisect commands that replay it, a kernel compiler's own errors).
Split from analyses/fixes.py, whose graph-break rules a failure under fullgraph=True words."""

from __future__ import annotations

import re
from typing import Any, Mapping

from compdiag.analyses.failure_facts import foreign_op
from compdiag.analyses.fixes import commands, graph_break_fix
from compdiag.analyses.hop_mutation import written_fix
from compdiag.analyses.origin_fixes import INTERNAL_ERROR, internal_error_fix
from compdiag.analyses.rules import Words, every, first
from compdiag.analyses.runtime_fixes import circumstance, eager_fails, runtime_fix
from compdiag.analyses.scalar_reads import BRANCH_WAYS
from compdiag.formats.compile_id import CompileId
from compdiag.formats.failure_graph import TORCH_NAMESPACES
from compdiag.store.schema import BACKWARD_FAILURE_NOTE


STAGE_TEXT = {
    "dynamo": "Dynamo failed while tracing the Python code into a graph.",
    "aot": "AOTAutograd failed while functionalising/partitioning the traced graph.",
    "inductor_lowering": "Inductor failed while lowering the graph to its IR.",
    "inductor_codegen": "Inductor failed while generating kernel code.",
    "kernel_compile": "A kernel Inductor generated failed to compile (C++/Triton compiler).",
    "runtime": "The compiled code failed while running.",
    "accuracy": "The compiled code computed different results than eager.",
    "backend": "The backend compiler given to torch.compile raised while compiling the graph "
               "Dynamo traced; no torch compiler stage ran under it.",
}
BACKEND_RAISED = ("The exception is the backend's own, not a torch compiler stage's: fix the "
                  "backend, or run with backend='aot_eager' (or 'eager') to tell whether the "
                  "graph or the backend is at fault.")
INJECTED = ("An Inductor *_TESTING_ONLY bug injector was on ({names}); it makes Inductor emit "
            "broken code on purpose. Unset it.")
FULLGRAPH = ("fullgraph=True (or `torch._dynamo.error_on_graph_break(True)`) turned a graph "
             "break into an error. {fix} Or drop fullgraph=True to accept the break.")
# probes38g sgc_sparse_propagate_fullgraph: the break's fix offered a disable helper, which is
# a graph break too, and fullgraph=True failed on it alike ("Skip calling
# torch.compiler.disable()d function")
DISABLE_UNDER_FULLGRAPH = (" (A `@torch.compiler.disable` helper is a graph break too: under "
                           "fullgraph=True it fails the same way, so that option needs "
                           "fullgraph off.)")
# probes29a cond_early_exit: a disable helper is a break itself inside the branch, and eager
# torch.cond traces its branches too, so "move it out of the compiled function" failed alike
WHOLE_BRANCH = ("The code must be traced whole here: a torch.cond / while_loop / scan branch "
                "is traced as one graph, in eager too (eager torch.cond traces its branches), "
                "so neither a `torch.compiler.disable` helper nor running it uncompiled helps. "
                "Take the statement torch names out of the branch: a branch must be a pure "
                "function of its operands (no print, no Python attribute, global or list it "
                "changes; a new tensor returned, not an operand as it is: `x.clone()`), and the "
                "side effect done after the call, from what the branch returns.")
DYNAMO_RAISED = ("The traced code raised while Dynamo ran it on fake tensors: check that the "
                 "line runs in eager (`torch.compiler.set_stance(\"force_eager\")`); a "
                 "shape/dtype error there is a bug in the code, a missing fake/meta kernel "
                 "(custom ops) needs `register_fake`.")
# ... decided: capture ran the traced ops in eager on the same inputs (capture/eager_rerun.py;
# probes45g wn_linear_1d_gain: eager ran `torch._weight_norm` with a 1-D gain, its
# decomposition did not, and the fix above blamed the code)
DYNAMO_RAISED_EAGER_RUNS = (
    "Eager runs this line on the same inputs (compdiag ran the traced ops in eager on the "
    "real values): the error is in torch's fake/meta implementation or decomposition of the "
    "call, a torch bug, not the program's. Until it is fixed, call it in a layout torch's "
    "other implementations take (the documented form of its arguments: shapes, keepdim, "
    "dtypes), or run it outside compiled code (a small helper decorated "
    "`@torch.compiler.disable`, a graph break there).")
# ... in the body of an op of the program's own namespace (probes46d
# int8_rowquant_composite_op_data_ptr: a CompositeImplicitAutograd op reading `data_ptr()`,
# called torch's bug by the eager verdict)
PROGRAM_OP_RAISED = (
    "The program's own op `{op}` raised while Dynamo ran its Python body on fake tensors "
    "(torch traces into an op that has no fake implementation): a body that reads data "
    "(`data_ptr()`, `.item()`, NumPy) cannot run there. Make it an opaque custom op "
    "(`torch.library.custom_op`) with a fake implementation (`register_fake`), so torch "
    "does not trace into it.")
DYNAMO_RAISED_EAGER_RAISES = (
    "Eager raises too on the same inputs ({said}): the line is wrong for these values, in "
    "eager as compiled; fix the code there (shapes, dtypes, devices of its arguments).")
# torch.export's dynamic_shapes (Dim) violated: the same, in export's terms (probes44c
# export_batch_reshape_specialized: a reshape to the config's training batch size)
EXPORT_EXPLANATION = ("{src} was declared dynamic (export's `dynamic_shapes`), but `{line}` "
                      "(line {lineno}) specialised it to {value}, so the exported program "
                      "could only take that size.")
EXPORT_FIX = ("Rewrite line {lineno} so it does not need the concrete size: take it from the "
              "tensor (`x.shape[0]`, or -1 in a reshape) where the code uses a fixed number, "
              "and no Python loop over `range(<size>)` or `if` on an exact size; or, if the "
              "size is meant to be fixed, declare it `Dim.STATIC` (or `Dim.AUTO`, to let "
              "export decide) in `dynamic_shapes`.")
# torch's "Suggested fixes:" under a violated dynamic-shape declaration (export's Dim,
# mark_dynamic): the declaration the traced code can take
_SUGGESTED = re.compile(r"^Suggested fixes:[ \t]*\n((?:[ \t]+\S.*(?:\n|$))+)", re.M)
SUGGESTED_FIX = ("Declare what the code can take, as torch suggests: {fixes} (in "
                 "`dynamic_shapes`, or the `mark_dynamic` bounds); the traced code limits the "
                 "dimension (a table or buffer of fixed size, a check), so the wider range "
                 "declared cannot hold. Or change the code so it takes the whole range.")
# `int(t)` / `float(t)` of a tensor's value, which must be a concrete number while tracing
_INT_READ = re.compile(r"\b(?:int|float)\(")
INT_READ_FIX = ("`int(...)` of a tensor asks for a concrete Python number, which the trace "
                "cannot have (the value exists only when the code runs), and this trace may "
                "not break the graph there (torch.export, fullgraph=True). Read it with "
                "`.item()` instead: the traced program then carries it as an unknown integer "
                "that ops such as `topk` or a slice accept (add `torch._check(k >= 0)` or "
                "other bounds where an op asks for them); or compute the number before the "
                "traced code and pass it in.")
# A Python `if`/`while`/`assert` on a tensor's value, where the trace cannot break.
_BRANCH = re.compile(r"\s*(?:if|elif|while|assert)\b")
DATA_BRANCH = ("This line branches in Python on a tensor's value, which the trace cannot "
               "know (the value exists only when the code runs), and this trace may not break "
               "the graph there (torch.export, fullgraph=True). " + BRANCH_WAYS)
# Per stage: what to try first, before bisect and minify.
FIRST_STEP = {
    "runtime": "Check whether backend='aot_eager' runs it correctly (if it does, the bug is in "
               "Inductor's generated code).",
    "inductor_lowering": "Confirm it is Inductor: backend='aot_eager' should compile it.",
    "inductor_codegen": "Confirm it is Inductor: backend='aot_eager' should compile it.",
    "kernel_compile": "Confirm it is Inductor: backend='aot_eager' should compile it.",
}
COMPILER_STAGES = ("aot", "inductor_lowering", "inductor_codegen", "kernel_compile", "runtime")
# An Inductor failure at the op's own line: the program can go on without waiting for the fix
# (probes46c bisenet_context_avg_up_crash: its `expand` spelling of the upsample compiled)
WORKAROUND_STAGES = ("inductor_lowering", "inductor_codegen", "kernel_compile")
WORKAROUND = ("Meanwhile, keep that line out of compiled code (a small helper decorated "
              "`@torch.compiler.disable`) or write it another way that computes the same "
              "(another op or spelling takes another lowering).")


# Kernel compile failures that are not a Python error in generated code: the Triton/PTX/
# ptxas/MLIR toolchain or the GPU's limits refused the kernel. (words in torch's message, fix)
KERNEL_COMPILE_FIXES: tuple[tuple[Words, str], ...] = (
    (every("out of resource: shared memory"),
     "The kernel's block sizes or pipeline stages need more shared memory than the GPU has: "
     "lower them (`torch._inductor.config.triton.max_tiles`, fewer `num_stages` in a custom "
     "config), or avoid max-autotune's largest configs for this op."),
    (every("out of resource"), "The kernel needs more GPU resources (registers, threads) than "
     "the GPU allows: smaller blocks or fewer warps, or compile this op without max-autotune."),
    (every("too many resources requested for launch"), "The kernel uses too many registers per "
     "thread for its block size: fewer warps per block, or `maxnreg` in the Triton config."),
    (every("ptxas"), "ptxas (CUDA's assembler) rejected the PTX Triton emitted: check that "
     "triton's bundled ptxas matches the driver (TRITON_PTXAS_PATH), then report it with the "
     "minified repro."),
    (every("PassManager::run failed"), "Triton's MLIR lowering failed for this kernel: a "
     "Triton bug; report it with the minified repro, or compile without max-autotune for this op."),
)


# A sentence of torch's error that tells the user what to do (probes46d
# mtl_gradnorm_probe_retain_graph: "Please keep backward(...) ..., or set
# torch._functorch.config.donated_buffer=False", and the fix sent the user to bisect)
_SENTENCE = re.compile(r"(?:^|(?<=[.!?])\s+)([A-Z][^\n]*?[.!?])(?=\s+[A-Z]|\s*$)", re.M)
_ADVICE = re.compile(r"^(?:Please|Consider|You can|You may|You should|To fix|To avoid|Try|"
                     r"Use|Set|Call|Pass|Avoid)\b")


# torch's standing lines about debugging or reporting, not about this error
_NOT_ADVICE = re.compile(r"TORCHDYNAMO_VERBOSE|TORCH_LOGS|TORCH_TRACE|stack trace|report|"
                         r"file an issue|github|debug", re.I)


def torch_advice(text: str | None) -> str | None:
    """The first sentence of torch's message (past its first line's head) that advises: it
    starts "Please", "Consider", "To fix", ...; None without one."""
    for m in _SENTENCE.finditer((text or "")[:4000]):
        sentence = " ".join(m.group(1).split())
        if _ADVICE.match(sentence) and 20 <= len(sentence) <= 400 and \
                not _NOT_ADVICE.search(sentence):
            return sentence
    return None


def kernel_compile_fix(message: str | None) -> str | None:
    return first(KERNEL_COMPILE_FIXES, message)


def stage_explanation(stage: str, fatal: bool) -> str:
    text = STAGE_TEXT.get(stage, f"The {stage} stage failed.")
    return text + (" The exception ended the program." if fatal else "")


# torch's message naming an argument value it refuses (`debug=True is incompatible with
# non-default context_fn`, probes47c ckpt_debug_compiled_blocks: bisect was offered, and its
# eager replay raised the same)
_REFUSED_ARGUMENT = re.compile(r"\b(\w+)=(\w+) (is (?:incompatible|not supported|not allowed)"
                               r"[^\n(]*?)\s*(?:\(|\.\s|\.?$)", re.M)
REJECTED_ARGUMENT_FIX = ("torch refuses `{arg}` here (`{arg}` {why}), and the failing line "
                         "passes it: remove `{arg}` from that call (or give the argument a "
                         "value torch accepts under torch.compile).")


# probes47e classweight_int_pow_os_exit: `counts ** -1` on an int64 tensor, a C++ error in the
# integer kernel, where eager raises "Integers to negative integer powers are not allowed"
_NEGATIVE_POWER = re.compile(r"([\w.\[\]]+)\s*\*\*\s*\(?\s*-\s*\d|\bpow\(\s*([^,()]+),\s*-\s*\d")
_INTEGER_VECTOR = re.compile(r"Vectorized(?:N)?<(?:long|int|int64_t|int32_t)\b")
NEGATIVE_INT_POWER_FIX = ("The line raises an integer tensor to a negative power, which eager "
                          "refuses too (\"Integers to negative integer powers are not "
                          "allowed\"); Inductor's integer kernel fails to build instead. "
                          "Convert to floating point first (`{x}.float() ** -1`, or "
                          "`1.0 / {x}`).")


def negative_int_power(line: str) -> str | None:
    """NEGATIVE_INT_POWER_FIX for the base the failing line raises to a negative power."""
    m = _NEGATIVE_POWER.search(line or "")
    return NEGATIVE_INT_POWER_FIX.format(x=(m.group(1) or m.group(2)).strip()) if m else None


def rejected_argument(text: str, line: str) -> str | None:
    """REJECTED_ARGUMENT_FIX where torch's words refuse `name=value` and the failing line
    passes that keyword; None otherwise."""
    m = _REFUSED_ARGUMENT.search(text or "")
    if m is None or not re.search(rf"\b{m.group(1)}\s*=\s*{m.group(2)}\b", line or ""):
        return None
    return REJECTED_ARGUMENT_FIX.format(arg=f"{m.group(1)}={m.group(2)}", why=m.group(3))


def failure_fix(stage: str, exc_type: str, one_line: str, *, run_id: int, argv: list[str],
                store: str | None = None, injected: dict[str, Any] | None = None,
                gb_type: str = "", debug: str = "", line: str = "", message: str = "",
                torch_message: str | None = None, no_minify: str | None = None,
                function: str | None = None, lib_frame: Mapping[str, Any] | None = None,
                eager: str | None = None, program_op: str | None = None) -> str:
    """The fix of a failure; `no_minify` (minify_unavailable's reason) says why `compdiag
    minify` is not offered; `function`, the compiled function (an internal error's fix names
    it); `eager`, what the ops Dynamo failed on did in eager (Reader.eager_reruns);
    `program_op`, an op of the program's own namespace whose body raised."""
    if exc_type == INTERNAL_ERROR:
        return internal_error_fix(function)
    text = f"{one_line}\n{torch_message or ''}\n{message}"
    # what the failing line passes is what torch (or eager, for an integer power) refuses
    passed = rejected_argument(text, line) or (
        negative_int_power(line) if stage == "kernel_compile" and _INTEGER_VECTOR.search(
            f"{one_line}\n{message}") else None)
    if passed:
        return passed
    minify, bisect = commands(run_id, argv, store)
    parts = []
    known = ((stage == "kernel_compile" and kernel_compile_fix(text))
             or runtime_fix(text, stage))
    if known:
        parts.append(known)
    advice = torch_advice(torch_message or message or one_line) \
        if not known and stage in ("runtime", "aot") else None
    if advice:  # torch's own words for what to do, where no rule knows the error: the
        return f"torch's advice: {advice}"   # fix, with nothing to bisect
    if (stage != "kernel_compile" and eager_fails(text, stage)) or circumstance(text, stage):
        # the data's error, or the moment's (interpreter shutdown): nothing to bisect or shrink
        return " ".join(parts)
    if injected:
        parts.append(INJECTED.format(names=", ".join(f"{k}={v!r}" for k, v in injected.items())))
    suggested = _SUGGESTED.search(torch_message or "")
    if suggested and exc_type in ("UserError", "ConstraintViolationError"):
        # torch's own rewrite of the declaration, for a range the code cannot take (probes44h
        # export_pos_table_seq_max: `Dim("seq", max=1024)` over a 128-row table)
        fixes = "; ".join(f"`{x.strip()}`" for x in suggested.group(1).splitlines()
                          if x.strip())
        return " ".join(parts + [SUGGESTED_FIX.format(fixes=fixes)])
    if stage == "dynamo":
        if exc_type == "Unsupported":
            # torch's own hints, for a break no rule knows (probes30d
            # ckpt_feature_hook_fullgraph: GB0067's `skip_fwd_side_effects_in_bwd_under_
            # checkpoint` was the fix that worked; the panel said "move it out")
            hints = re.findall(r"^\s*Hint:\s*(.+)$", torch_message or "", re.M)
            # with torch's explanation, as a break's fix reads it (probes35a: "marked as
            # skipped" on a scheduler's wrapper of SGD.step was called a C-extension function)
            said = " ".join(re.findall(r"^\s*Explanation:\s*(.+)$", torch_message or "", re.M))
            fix = graph_break_fix(gb_type, f"{one_line} {said}".strip(), debug, line, hints,
                                  lib_frame)
            if "torch.compiler.disable" in fix:
                fix = fix.rstrip() + DISABLE_UNDER_FULLGRAPH
            parts.append(FULLGRAPH.format(fix=fix))
        elif gb_type and "HigherOrderOp" in exc_type and not known:
            # another error reporting a graph break it hit (a higher-order op's branch, which
            # must trace whole): the break's fix (set21b cond_branch_print: the `print`)
            parts.append(written_fix(debug) or WHOLE_BRANCH)
        elif exc_type == "GuardOnDataDependentSymNode" and _INT_READ.search(line) and \
                "specialized integer" in text and not known:
            # `int(t)` asks for a concrete Python int (probes44h export_topk_confident_count)
            parts.append(INT_READ_FIX)
        elif exc_type == "GuardOnDataDependentSymNode" and _BRANCH.match(line) and not known:
            # a Python branch on a tensor's value, which a trace that may not break (export,
            # fullgraph=True) cannot take (probes44c export_peak_norm_data_branch)
            parts.append(DATA_BRANCH)
        elif not known and program_op:
            parts.append(PROGRAM_OP_RAISED.format(op=program_op.removeprefix("torch.ops.")))
        elif not known and eager and eager.startswith("raises: "):
            parts.append(DYNAMO_RAISED_EAGER_RAISES.format(said=eager.removeprefix("raises: ")))
        elif not known:
            parts.append(DYNAMO_RAISED_EAGER_RUNS if eager == "runs" else DYNAMO_RAISED)
            parts.append(f"Narrow it down: {bisect}.")
    elif stage == "backend":
        # not minify or bisect: both replay the graph through Inductor and AOTAutograd,
        # which are not what raised
        parts.append(BACKEND_RAISED)
    elif stage in COMPILER_STAGES:
        if stage in FIRST_STEP and not known:
            parts.append(FIRST_STEP[stage])
        if stage in WORKAROUND_STAGES and not known and line.strip() and \
                not line.lstrip().startswith(("def ", "@", "class ")):
            parts.append(WORKAROUND)
        parts.append(f"Find the culprit: {bisect}; then shrink the graph to a standalone "
                     f"repro: `{minify}`." if not no_minify else
                     f"Find the culprit: {bisect} (compdiag's minifier cannot replay this "
                     f"failure: {no_minify}).")
    else:
        parts.append(f"Narrow it down with {bisect} and `{minify}`." if not no_minify else
                     f"Narrow it down with {bisect} (compdiag's minifier cannot replay this "
                     f"failure: {no_minify}).")
    return " ".join(parts)


def _frame_compile(cid: str | None) -> tuple | None:
    parsed = CompileId.of(cid)
    return None if parsed is None else (parsed.generation, parsed.frame, parsed.frame_compile,
                                        parsed.compiled_autograd)


# a custom op torch names in its message: `<CustomOpDef(ns::name)>` (not C++'s `at::vec` in
# a compiler error)
_CUSTOM_OP = re.compile(r"CustomOpDef\(([A-Za-z_]\w*)::([A-Za-z_]\w*)\)")


def minify_unavailable(ctx: Any, cid: str | None, message: str | None,
                       op: str | None = None) -> str | None:
    """Why `compdiag minify` cannot replay this failure (None: it can). It replays the graph
    and inputs capture kept when the failure happened (minify/graph.py's `load`); an imported
    log holds no input tensors, a backward graph's failure is not kept by every capture, and
    a failure about a custom op (`op`, the op torch named, stored at ingest) needs that op,
    which only the program registers (minify imports nothing of it)."""
    # torch names an op with its `torch.ops.` prefix or without (probes32b simclr_info_nce:
    # `torch.ops.aten.index.Tensor` was called a custom op, `torch.ops.torch.ops.aten...`)
    op = op.removeprefix("torch.ops.") if op else op
    named = _CUSTOM_OP.search(message or "")  # `<CustomOpDef(ffn_ops::relu2_bwd)>`
    if not op and named and named.group(1) not in TORCH_NAMESPACES:
        op = f"{named.group(1)}.{named.group(2)}"
    if foreign_op(op):
        return (f"the failure is in torch.ops.{op}, a custom op only your program registers: "
                "minify replays the graph in a process of its own, without your program; check "
                "the op with `torch.library.opcheck` instead")
    if ctx.run.get("source") == "import":
        return ("this run was imported from a trace log, which does not hold the failing "
                "graph's inputs; run the script under compdiag run to keep them")
    kept = ctx.r.kept_failure_graphs(ctx.run_id)
    if cid in kept or (cid is None and kept) or \
            (_frame_compile(cid) is not None
             and _frame_compile(cid) in {_frame_compile(k) for k in kept}):
        return None
    if f"({BACKWARD_FAILURE_NOTE})" in (message or ""):
        return "compdiag kept no backward graph for this failure"
    unkept = next((w for w in ctx.r.warnings(ctx.run_id)
                   if "cannot be kept for minify" in w), None)
    return unkept or "compdiag kept no failing graph for it (no graph and inputs to replay)"


