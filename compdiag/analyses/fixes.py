"""compdiag's fix rules: from a diagnosed cause to the change the user should make.

Pure functions of text (no store, no torch), so each rule is unit-tested on its own. The
graph-break rules key on the graph-break type torch names (the `Gb_type` of its registry) and
the user's own source line; torch's own hints are shown next to these, not replaced by them.
"""

from __future__ import annotations

import re
import shlex
from typing import Any, Callable

# -- graph breaks ------------------------------------------------------------------------------
_Rule = tuple[Callable[[str, str, str, str], bool], Callable[[str, str, str, str], str]]


def _has(*words: str) -> Callable[[str, str, str, str], bool]:
    def pred(gb_type: str, expl: str, ctx: str, line: str) -> bool:
        text = " ".join((gb_type, expl, ctx)).lower()
        return any(w.lower() in text for w in words)
    return pred


def _line_has(*words: str) -> Callable[[str, str, str, str], bool]:
    def pred(gb_type: str, expl: str, ctx: str, line: str) -> bool:
        return any(w in line for w in words)
    return pred


def _builtin(gb_type: str, expl: str, ctx: str, line: str) -> str:
    name = re.search(r"builtin (?:operator )?`?(\w+)`?", expl + " " + ctx)
    fn = name.group(1) if name else "the builtin"
    if fn == "print":
        return _PRINT
    if fn in ("str", "repr", "format") or "format" in line:
        return ("Formatting a tensor into a string needs its values, which a graph does not "
                "have: build the message outside the compiled function (return the tensor and "
                "format it after the call), or guard it with "
                "`if not torch.compiler.is_compiling():`.")
    return (f"Dynamo cannot trace `{fn}` with these argument types: compute it outside the "
            f"compiled function and pass the result in, use a torch equivalent, or move the call "
            f"behind a `torch.compiler.disable` helper so only that call runs in eager.")


_PRINT = ("Remove the print() from the compiled function or log after the call returns; to "
          "keep it, let Dynamo move it to the end of the graph with "
          "`torch._dynamo.config.reorderable_logging_functions.add(print)`, or guard it with "
          "`if not torch.compiler.is_compiling():`.")


_SKIP_CTX = re.compile(r"module: ([\w.]+), qualname: ([\w.<>]+)")


def _skipped(gb_type: str, expl: str, ctx: str, line: str) -> str:
    m = _SKIP_CTX.search(ctx) or _SKIP_CTX.search(expl)
    module, qualname = (m.group(1), m.group(2)) if m else ("", "")
    target = f"{module}.{qualname}" if m else "this function"
    if module.lstrip("_") == "warnings":
        return ("warnings.* calls and context managers are not traceable: silence or emit the "
                "warning outside the compiled function (e.g. configure warnings.filterwarnings "
                "once at start-up).")
    if module in ("inspect", "sys", "traceback") and ("frame" in qualname or
                                                      "stack" in qualname):
        return ("Stack introspection (inspect.stack, sys._getframe, traceback) cannot be "
                "traced: compute it once outside the compiled function and pass the result in.")
    if module == "time":
        return ("Timing inside a compiled function measures tracing, not execution, and breaks "
                "the graph: time the call from outside (with torch.cuda.synchronize() on GPU).")
    return (f"`{target}` is a builtin or C-extension function Dynamo will not trace. Call it "
            "outside the compiled region and pass its result in; if it must stay, wrap it as a "
            "custom op (`torch.library.custom_op`, with a fake implementation) so it stays in "
            "the graph, or use `torch.compiler.allow_in_graph` if it only does tensor math.")


_GB_RULES: list[_Rule] = [
    (_has("logging.Logger", "logger method"),
     lambda *a: "Move the logging call out of the compiled function, or let Dynamo reorder it "
     "after the graph: `torch._dynamo.config.reorderable_logging_functions.add(logger.info)` "
     "(for the methods you use); or guard it with `if not torch.compiler.is_compiling():`."),
    (_has("builtin operator `print`", "builtin print"), lambda *a: _PRINT),
    (_has("Data-dependent branching", "generic_jump"),
     lambda *a: "The `if` depends on a tensor's value, which is unknown while tracing. Compute "
     "both branches and select with `torch.where(cond, a, b)`, or use `torch.cond(pred, "
     "true_fn, false_fn, (x,))` so one graph holds both branches."),
    (_has("Tensor.item()", "_local_scalar_dense"),
     lambda *a: "`.item()` turns a tensor into a Python number. Keep it a tensor (e.g. "
     "`x * t` instead of `x * t.item()`), or set `torch._dynamo.config.capture_scalar_outputs "
     "= True` to trace it as an unbacked SymInt/SymFloat."),
    (_has("tolist()"),
     lambda *a: "`.tolist()` leaves tensor land. Keep the computation vectorised on tensors "
     "(index, `torch.where`, reductions) instead of iterating over Python values; for integer "
     "tensors `torch._dynamo.config.capture_scalar_outputs = True` lets it trace."),
    (_has("numpy function", "numpy"),
     lambda *a: "This numpy call has no torch._numpy equivalent: use the torch function (e.g. "
     "torch.save/torch.fft/...) on the tensor, or do the numpy work outside the compiled "
     "function."),
    (_has("Dynamic shape operator", "output shape depends on input tensor data"),
     lambda *a: "The op's output size depends on the data (nonzero, unique, masked_select...). "
     "Keep shapes static with a mask (`torch.where(mask, x, 0)`), or set `torch._dynamo."
     "config.capture_dynamic_output_shape_ops = True` to trace it with an unbacked size."),
    (_has("torch.compiler.disable"),
     lambda *a: "This call is to a function wrapped in torch.compiler.disable, so it always "
     "runs in eager and splits the graph. Remove the disable if the function is traceable, "
     "or move the call to the start or end of the compiled function so only one break "
     "remains."),
    (_has("torch._dynamo.graph_break()"),
     lambda *a: "An explicit `torch._dynamo.graph_break()` is in the code: remove it (it is a "
     "debugging aid) unless you mean to split the graph here."),
    (_has("Tensor.backward()"),
     lambda *a: "Compile the forward/loss only and call `loss.backward()` outside the compiled "
     "function (compiled autograd, `torch._dynamo.config.compiled_autograd = True`, compiles "
     "the backward itself)."),
    (_has("copy.deepcopy"),
     lambda *a: "Use `x.clone()` (or `.detach().clone()`) instead of copy.deepcopy on tensors "
     "inside compiled code; deep-copy modules before compiling, not inside."),
    (_has("Unsupported context manager"),
     lambda *a: "Dynamo cannot enter this context manager: move the `with` block (files, locks, "
     "profilers) outside the compiled function and compile only the tensor code inside it. "
     "torch's own managers (no_grad, autocast, set_grad_enabled) are supported when created "
     "inside the compiled function."),
    (_has("Observed exception"),
     lambda *a: "Dynamo traced an exception the code raises (see the debug context): the same "
     "code would raise in eager too. Fix the error itself (check it with "
     "`torch.compiler.set_stance(\"force_eager\")`), or catch it inside the compiled "
     "function."),
    (_has("Failed to trace builtin operator"), _builtin),
    (_has("marked as skipped", "skipfiles", "skipped function"), _skipped),
    (_has("generator"),
     lambda *a: "Materialise the generator outside the compiled function (pass a list/tuple "
     "in) or rewrite it as a loop that returns a list."),
    (_has("Reconstruction failure"),
     lambda *a: "A follow-on of an earlier break in this function: fix that one first. If it "
     "stays, do not return or keep across the break objects Dynamo cannot rebuild (context "
     "managers, iterators, generators)."),
    (_has("Attempted to call function marked as skipped"), _skipped),
    (_has("unsupported method call", "call_method"),
     lambda *a: "Dynamo cannot trace this method on this object: call it outside the compiled "
     "function and pass the result in, or replace it with a tensor op."),
    (_line_has(".numpy()"),
     lambda *a: "Converting to numpy inside compiled code breaks the graph: stay on torch "
     "tensors."),
]


def graph_break_fix(gb_type: str, explanation: str, debug_ctx: str, line: str,
                    hints: list[str]) -> str:
    """The concrete change for a graph break; torch's first specific hint when no rule knows."""
    # The graph-break type decides first; the explanation and debug context refine it only
    # when the type alone names no rule (e.g. a builtin: print, str, open).
    for pred, make in _GB_RULES:
        if pred(gb_type, "", "", "") and gb_type != "Failed to trace builtin operator":
            return make(gb_type, explanation, debug_ctx, line)
    for pred, make in _GB_RULES:
        if pred(gb_type, explanation, debug_ctx, line):
            return make(gb_type, explanation, debug_ctx, line)
    for h in hints:
        if "report an issue" not in h.lower() and "file an issue" not in h.lower():
            return h
    return ("Move this statement out of the compiled function, or wrap it in a "
            "torch.compiler.disable helper so that only it runs in eager.")


# -- recompiles --------------------------------------------------------------------------------
def recompile_explanation(category: str, source: str, fn: str | None, count: int,
                          guard: str) -> str:
    where = f"{fn}()" if fn else "the function"
    what = {
        "size": f"A guard on the size {source} failed: {where} was compiled for one size and "
                "called with another.",
        "stride": f"A guard on the stride {source} failed: an input with a different memory "
                  "layout (a transposed or sliced view) reached the compiled code.",
        "dtype": f"The tensor {source} arrived with a different dtype; each dtype needs its "
                 "own graph.",
        "device": f"The tensor {source} arrived on a different device.",
        "requires_grad": f"The tensor {source} changed requires_grad; graphs with and without "
                         "autograd are different graphs.",
        "global_state": f"Global torch state ({source}) differs from when {where} was "
                        "compiled.",
        "training": f"{source} changed: the module switched between train() and eval().",
        "global": f"The global {source} changed value; Dynamo baked the old value into the "
                  "graph.",
        "value": f"The Python value {source} changed; Dynamo specialises on Python scalars and "
                 "constants.",
        "length": f"{source} changed: the length of a list/tuple argument is part of the "
                  "graph.",
        "identity": f"A different object was passed as {source}; Dynamo guards on its "
                    "identity.",
        "type": f"{source} changed type.",
    }.get(category, f"A guard failed: {guard[:200]}")
    if count > 1:
        what += f" It happened {count} times."
    return what


def recompile_fix(category: str, source: str, before: Any, after: Any, *, count: int,
                  limit: bool, fn: str | None) -> str:
    tensor = re.sub(r"^L\['(.+?)'\].*$", r"\1", source)
    dim = re.search(r"\[(\d+)\]$", source)
    fixes = {
        "size": (f"Mark the varying dimension dynamic before the first call, "
                 f"`torch._dynamo.mark_dynamic({tensor}, {dim.group(1) if dim else 0})`, or "
                 "compile with `dynamic=True`" +
                 ("; repeated size recompiles mean automatic dynamic shapes were off "
                  "(dynamic=False or automatic_dynamic_shapes=False): drop dynamic=False. "
                  "If only a few sizes occur, pad inputs to a fixed set of sizes."
                  if count > 1 else "; one recompile per new dimension is expected "
                  "(automatic dynamic shapes), more is not.")),
        "stride": (f"Make the layout consistent: pass `{tensor}.contiguous()` (or always the same "
                   "view) to the compiled function."),
        "dtype": (f"Call it with one dtype: convert at the call site (`{tensor}.to(torch."
                  "float32)`) or keep separate compiled functions per dtype on purpose."),
        "device": f"Move {tensor} to one device before calling the compiled function.",
        "requires_grad": ("Keep requires_grad consistent across calls: run inference calls "
                          "under `torch.no_grad()` with the same inputs, or detach() the "
                          "inputs that should not require grad."),
        "global_state": ("Call the compiled function under one grad/autocast mode, or compile "
                         "separate functions for training and for inference (torch.no_grad())."),
        "training": ("Switching train()/eval() costs one graph per mode, which is fine; avoid "
                     "toggling it inside a loop, or keep one compiled copy per mode (e.g. "
                     "compile the model after model.eval() for evaluation)."),
        "global": (f"Don't mutate the global {source} between calls: pass it as an argument "
                   "(a tensor, so its value is not baked into the graph) or make it a constant."),
        "value": (f"Pass {source} as a tensor (`torch.tensor(value)`) instead of a Python "
                  "number/constant, or mark it dynamic; each distinct Python value otherwise "
                  "compiles a new graph."),
        "length": ("Pass one stacked tensor (`torch.stack(items)`) instead of a list whose "
                   "length changes, or pad the list to a fixed length."),
        "identity": ("Create the object (module, function, optimizer) once and reuse it; a new "
                     "object per call forces a new compile."),
        "type": "Call the function with the same argument types every time.",
    }
    fix = fixes.get(category, "Keep the guarded input the same between calls, or make it "
                              "dynamic (torch._dynamo.mark_dynamic / dynamic=True).")
    if limit:
        fix = (f"{fn or 'The function'} hit torch._dynamo.config.recompile_limit and now runs "
               "uncompiled. " + fix + " Raising `torch._dynamo.config.recompile_limit` only "
               "hides the cost.")
    return fix


# -- failures ----------------------------------------------------------------------------------
_STAGE_TEXT = {
    "dynamo": "Dynamo failed while tracing the Python code into a graph.",
    "aot": "AOTAutograd failed while functionalising/partitioning the traced graph.",
    "inductor_lowering": "Inductor failed while lowering the graph to its IR.",
    "inductor_codegen": "Inductor failed while generating kernel code.",
    "kernel_compile": "A kernel Inductor generated failed to compile (C++/Triton compiler).",
    "runtime": "The compiled code failed while running.",
    "accuracy": "The compiled code computed different results than eager.",
}


def stage_explanation(stage: str, fatal: bool) -> str:
    text = _STAGE_TEXT.get(stage, f"The {stage} stage failed.")
    return text + (" The exception ended the program." if fatal else "")


def _cmd(run_id: int, argv: list[str], store_arg: str) -> tuple[str, str]:
    script = " ".join(shlex.quote(a) for a in argv) or "SCRIPT"
    return (f"compdiag minify{store_arg} {run_id}",
            f"compdiag bisect{store_arg} {run_id} -- python {script}")


def failure_fix(stage: str, exc_type: str, one_line: str, *, run_id: int, argv: list[str],
                store_arg: str = "", injected: dict[str, Any] | None = None,
                gb_type: str = "", debug: str = "", line: str = "") -> str:
    minify, bisect = _cmd(run_id, argv, store_arg)
    parts = []
    if injected:
        names = ", ".join(f"{k}={v!r}" for k, v in injected.items())
        parts.append(f"An Inductor *_TESTING_ONLY bug injector was on ({names}); it makes "
                     "Inductor emit broken code on purpose. Unset it.")
    if stage == "dynamo":
        if exc_type == "Unsupported":
            gb_fix = graph_break_fix(gb_type, one_line, debug, line, [])
            parts.append("fullgraph=True (or torch._dynamo.config.error_on_graph_break) turned "
                         "a graph break into an error. " + gb_fix +
                         " Or drop fullgraph=True to accept the break.")
        else:
            parts.append("The traced code raised while Dynamo ran it on fake tensors: check "
                         "that the line runs in eager (`torch.compiler.set_stance(\"force_eager"
                         "\")`); a shape/dtype error there is a bug in the code, a missing "
                         "fake/meta kernel (custom ops) needs `register_fake`.")
            parts.append(f"Narrow it down: `{bisect}`.")
    elif stage in ("aot", "inductor_lowering", "inductor_codegen", "kernel_compile",
                   "runtime"):
        if stage == "runtime":
            parts.append("Check whether backend='aot_eager' runs it correctly (if it does, "
                         "the bug is in Inductor's generated code).")
        elif stage != "aot":
            parts.append("Confirm it is Inductor: backend='aot_eager' should compile it.")
        parts.append(f"Find the culprit: `{bisect}`; then shrink the graph to a standalone "
                     f"repro: `{minify}`.")
    else:
        parts.append(f"Narrow it down with `{bisect}` and `{minify}`.")
    return " ".join(parts)


def accuracy_fix(run_id: int, argv: list[str], injected: dict[str, Any]) -> str:
    minify, bisect = _cmd(run_id, argv, "")
    out = ""
    if injected:
        out = ("An Inductor *_TESTING_ONLY bug injector was on (" +
               ", ".join(f"{k}={v!r}" for k, v in injected.items()) + "): unset it. ")
    return out + (f"Find the pass or kernel responsible with `{bisect}`, then `{minify}` for a "
                  "repro; fp16/bf16 differences within ~1e-2 are expected reordering, not a "
                  "bug (try torch._inductor.config.emulate_precision_casts = True).")


# -- CUDA graphs -------------------------------------------------------------------------------
_CG_RULES = [
    ("mutated inputs", "An input is mutated in place inside the graph: return a new tensor "
     "instead of mutating the argument (or mutate only buffers), so the graph can be replayed."),
    ("unbacked binding", "An op with a data-dependent output (nonzero, item, unique...) "
     "splits the graph: that partition runs without CUDA graphs. Keep shapes static (a mask "
     "with torch.where instead of nonzero) or move the op out of the compiled region."),
    ("cpu ops", "A CPU op sits in the graph, so its partition runs without CUDA graphs: "
     "move the tensor it uses to CUDA (`.cuda()` once, outside the loop)."),
    ("cpu device", "A CPU tensor is part of the graph: move every input and constant to CUDA "
     "(or keep CPU scalars as Python numbers)."),
    ("non-cuda", "A non-CUDA input reached the graph: move every input to the GPU."),
    ("dynamic shape", "Input sizes vary: pad to a few fixed sizes, or mark the dimension "
     "static; each distinct size records its own graph."),
    ("incompatible op", "An op that cannot be captured (CPU sync, data-dependent output, "
     "RNG/collective) is in the graph: move it outside the compiled region or replace it."),
    ("complex", "Complex tensors are not supported by CUDA graphs: keep them outside."),
    ("deterministic", "torch.use_deterministic_algorithms is incompatible with this op under "
     "CUDA graphs."),
]


def cudagraph_fix(reason: str) -> str:
    low = reason.lower()
    for key, fix in _CG_RULES:
        if key in low:
            return fix
    return ("Remove what the reason names from the compiled region, or compile this function "
            "without mode='reduce-overhead'.")


# -- fusion and perf ---------------------------------------------------------------------------
def fusion_reason_class(reason: str) -> str | None:
    """Which cannot-fuse reasons are worth a diagnosis (None: benign, e.g. no shared data)."""
    low = reason.lower()
    if "no shared data" in low:
        return None
    if "exceeds max fusion" in low or "fusion size" in low or "too many" in low:
        return "size_limit"
    if "template" in low or "epilogue" in low or "prologue" in low:
        return "template"
    if "numel" in low or "rnumel" in low or "different ranges" in low or "shape" in low:
        return "mismatched_ranges"
    if "memory" in low or "score" in low or "benefit" in low:
        return "no_benefit"
    if "loop order" in low or "stride" in low or "indexing" in low:
        return "layout"
    if "config" in low or "disabled" in low:
        return "config"
    if "intermediate" in low or "dependency" in low or "cycle" in low:
        return "dependency"
    return None


def fusion_fix(cls: str, reason: str) -> tuple[str, str, str]:
    """(title, explanation, fix) for a class of missed fusions."""
    table = {
        "size_limit": ("fusion capped by size",
                       "Inductor stopped fusing because the fused kernel would exceed "
                       "max_fusion_size.",
                       "Raise torch._inductor.config.max_fusion_size if the kernel is "
                       "memory-bound, or split the work so fewer ops chain together."),
        "template": ("template/epilogue not fused",
                     "A matmul/conv template's epilogue was not fused.",
                     "Try mode='max-autotune' (Triton templates with epilogue fusion) or make "
                     "the epilogue a pointwise op on the template output."),
        "mismatched_ranges": ("loops of different shapes",
                              "The two kernels iterate over different ranges (e.g. a reduction "
                              "and a pointwise op over another shape), so they run as separate "
                              "loops and the intermediate goes through memory.",
                              "Reorder or reshape so both work over the same iteration space "
                              "(e.g. keep the reduction dim last, use keepdim=True so the "
                              "broadcast is a view), or accept the extra kernel."),
        "no_benefit": ("fusion judged unprofitable", "Inductor scored the fusion as saving no "
                       "memory traffic.", "Usually fine; check the kernels in `compdiag show`."),
        "layout": ("incompatible loop orders", "The nodes read/write with layouts that need "
                   "different loop orders.", "Make the layouts agree: .contiguous() once, or "
                   "avoid transposes between the ops; torch._inductor.config.loop_ordering_"
                   "after_fusion can help."),
        "config": ("fusion disabled by config", "An Inductor config disabled this fusion.",
                   "Check torch._inductor.config (e.g. epilogue_fusion, aggressive_fusion)."),
        "dependency": ("fusion would create a cycle", "Fusing would create a dependency cycle "
                       "through another kernel.", "Usually inherent to the graph; reorder ops "
                       "so the intermediate is produced before the other consumer."),
    }
    return table.get(cls, ("missed fusion", reason, "See `compdiag show` for the kernels."))


def perf_hint_fix(msg: str) -> str:
    low = msg.lower()
    if "reduction" in low and ("contiguous" in low or "stride" in low):
        return "Reduce over the innermost, contiguous dimension (transpose once beforehand)."
    if "fallback" in low:
        return "Replace the op with one Inductor lowers, or accept the eager kernel."
    return "Follow the hint, or see the kernels with `compdiag show`."


def fallback_fix(op: str) -> str:
    return (f"aten.{op} has no Inductor lowering on this device: if it sits in a hot loop, "
            f"express it with ops Inductor generates code for (pointwise/reduction "
            f"equivalents), move it outside the compiled region, or accept the extra kernel; "
            f"`torch._inductor.config.implicit_fallbacks` controls whether this is allowed.")
