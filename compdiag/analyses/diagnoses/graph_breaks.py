"""Graph breaks: where Dynamo split the graph (or gave up on a function), why in torch's words,
and the change that removes the break.

Explanations and hints are torch's (the break's own text, else the installed torch's
graph_break_registry.json); the fixes are compdiag's rules, RULES below, keyed on the
graph-break type torch names and refined by its explanation, debug context and the user's
source line. Cost: a break that throws the whole function back to eager ranks above one that
only splits it, then by how often it was hit; a follow-on of an earlier break ranks below its
cause."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.gb_registry import URL, gb_registry, gb_type
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.limiter import Limiter, structural
from compdiag.analyses.ranking import score as cost
from compdiag.store.reader import compile_id_key

KIND = "graph_break"


@dataclass(frozen=True)
class GraphBreakDetails(Details):
    omit_none: ClassVar[tuple[str, ...]] = ("url",)
    function: str | None
    frame_skipped: bool
    gb_type: str
    debug_context: str
    url: str | None = None


# -- the fix rules -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    """`words` found (case-insensitive) in the graph-break type, or its explanation and debug
    context; with `on_line`, found (as written) in the user's source line. `fix` is the text,
    or a function of (gb_type, explanation, debug context, line) for a fix that names what the
    break names."""

    words: tuple[str, ...]
    fix: str | Callable[[str, str, str, str], str]
    on_line: bool = False

    def matches(self, gb_type: str, expl: str, ctx: str, line: str) -> bool:
        if self.on_line:
            return any(w in line for w in self.words)
        text = " ".join((gb_type, expl, ctx)).lower()
        return any(w.lower() in text for w in self.words)

    def text(self, gb_type: str, expl: str, ctx: str, line: str) -> str:
        return self.fix if isinstance(self.fix, str) else self.fix(gb_type, expl, ctx, line)


PRINT_FIX = ("Remove the print() from the compiled function or log after the call returns; to "
             "keep it, let Dynamo move it to the end of the graph with "
             "`torch._dynamo.config.reorderable_logging_functions.add(print)`, or guard it with "
             "`if not torch.compiler.is_compiling():`.")
FORMAT_FIX = ("Formatting a tensor into a string needs its values, which a graph does not "
              "have: build the message outside the compiled function (return the tensor and "
              "format it after the call), or guard it with "
              "`if not torch.compiler.is_compiling():`.")
TIME_FIX = ("Timing inside a compiled function measures tracing, not execution, and breaks "
            "the graph: time the call from outside (with torch.cuda.synchronize() on GPU).")
_BUILTIN_NAME = re.compile(r"builtin (?:operator )?`?(\w+)`?")


def _builtin(gb_type: str, expl: str, ctx: str, line: str) -> str:
    name = _BUILTIN_NAME.search(expl + " " + ctx)
    fn = name.group(1) if name else "the builtin"
    if fn == "print":
        return PRINT_FIX
    if fn in ("str", "repr", "format") or "format" in line:
        return FORMAT_FIX
    return (f"Dynamo cannot trace `{fn}` with these argument types: compute it outside the "
            f"compiled function and pass the result in, use a torch equivalent, or move the call "
            f"behind a `torch.compiler.disable` helper so only that call runs in eager.")


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
        return TIME_FIX
    return (f"`{target}` is a builtin or C-extension function Dynamo will not trace. Call it "
            "outside the compiled region and pass its result in; if it must stay, wrap it as a "
            "custom op (`torch.library.custom_op`, with a fake implementation) so it stays in "
            "the graph, or use `torch.compiler.allow_in_graph` if it only does tensor math.")


RULES: tuple[Rule, ...] = (
    Rule(("logging.Logger", "logger method"),
         "Move the logging call out of the compiled function, or let Dynamo reorder it after "
         "the graph: `torch._dynamo.config.reorderable_logging_functions.add(logger.info)` "
         "(for the methods you use); or guard it with `if not torch.compiler.is_compiling():`."),
    Rule(("builtin operator `print`", "builtin print"), PRINT_FIX),
    Rule(("Data-dependent branching", "generic_jump"),
         "The `if` depends on a tensor's value, which is unknown while tracing. Compute both "
         "branches and select with `torch.where(cond, a, b)`, or use `torch.cond(pred, "
         "true_fn, false_fn, (x,))` so one graph holds both branches."),
    Rule(("Tensor.item()", "_local_scalar_dense"),
         "`.item()` turns a tensor into a Python number. Keep it a tensor (e.g. `x * t` "
         "instead of `x * t.item()`), or set `torch._dynamo.config.capture_scalar_outputs = "
         "True` to trace it as an unbacked SymInt/SymFloat."),
    Rule(("tolist()",),
         "`.tolist()` leaves tensor land. Keep the computation vectorised on tensors (index, "
         "`torch.where`, reductions) instead of iterating over Python values; for integer "
         "tensors `torch._dynamo.config.capture_scalar_outputs = True` lets it trace."),
    Rule(("numpy function", "numpy"),
         "This numpy call has no torch._numpy equivalent: use the torch function (e.g. "
         "torch.save/torch.fft/...) on the tensor, or do the numpy work outside the compiled "
         "function."),
    Rule(("Dynamic shape operator", "output shape depends on input tensor data"),
         "The op's output size depends on the data (nonzero, unique, masked_select...). Keep "
         "shapes static with a mask (`torch.where(mask, x, 0)`), or set `torch._dynamo.config."
         "capture_dynamic_output_shape_ops = True` to trace it with an unbacked size."),
    Rule(("torch.compiler.disable",),
         "This call is to a function wrapped in torch.compiler.disable, so it always runs in "
         "eager and splits the graph. Remove the disable if the function is traceable, or move "
         "the call to the start or end of the compiled function so only one break remains."),
    Rule(("torch._dynamo.graph_break()",),
         "An explicit `torch._dynamo.graph_break()` is in the code: remove it (it is a "
         "debugging aid) unless you mean to split the graph here."),
    Rule(("Tensor.backward()",),
         "Compile the forward/loss only and call `loss.backward()` outside the compiled "
         "function (compiled autograd, `torch._dynamo.config.compiled_autograd = True`, "
         "compiles the backward itself)."),
    Rule(("copy.deepcopy",),
         "Use `x.clone()` (or `.detach().clone()`) instead of copy.deepcopy on tensors inside "
         "compiled code; deep-copy modules before compiling, not inside."),
    Rule(("Unsupported context manager",),
         "Dynamo cannot enter this context manager: move the `with` block (files, locks, "
         "profilers) outside the compiled function and compile only the tensor code inside "
         "it. torch's own managers (no_grad, autocast, set_grad_enabled) are supported when "
         "created inside the compiled function."),
    Rule(("Observed exception",),
         "Dynamo traced an exception the code raises (see the debug context): the same code "
         "would raise in eager too. Fix the error itself (check it with "
         "`torch.compiler.set_stance(\"force_eager\")`), or catch it inside the compiled "
         "function."),
    Rule(("Failed to trace builtin operator",), _builtin),
    # torch 2.15 names these itself (GB0569, GB9193); earlier ones said "builtin str" and
    # "marked as skipped ... module: time".
    Rule(("repr() on tensor", "str() on tensor"), FORMAT_FIX),
    Rule(("Call to a time function",), TIME_FIX),
    Rule(("marked as skipped", "skipfiles", "skipped function"), _skipped),
    Rule(("generator",),
         "Materialise the generator outside the compiled function (pass a list/tuple in) or "
         "rewrite it as a loop that returns a list."),
    Rule(("Reconstruction failure",),
         "A follow-on of an earlier break in this function: fix that one first. If it stays, "
         "do not return or keep across the break objects Dynamo cannot rebuild (context "
         "managers, iterators, generators)."),
    Rule(("Attempted to call function marked as skipped",), _skipped),
    Rule(("unsupported method call", "call_method"),
         "Dynamo cannot trace this method on this object: call it outside the compiled "
         "function and pass the result in, or replace it with a tensor op."),
    Rule((".numpy()",), "Converting to numpy inside compiled code breaks the graph: stay on "
         "torch tensors.", on_line=True),
)
# A type that names no cause by itself: the explanation must decide (print, str, open, ...).
_NEEDS_EXPLANATION = "Failed to trace builtin operator"
FALLBACK_FIX = ("Move this statement out of the compiled function, or wrap it in a "
                "torch.compiler.disable helper so that only it runs in eager.")


def graph_break_fix(gb_type: str, explanation: str, debug_ctx: str, line: str,
                    hints: list[str] | tuple[str, ...]) -> str:
    """The concrete change for a graph break; torch's first specific hint when no rule knows."""
    if gb_type != _NEEDS_EXPLANATION:
        for rule in RULES:
            if rule.matches(gb_type, "", "", ""):
                return rule.text(gb_type, explanation, debug_ctx, line)
    for rule in RULES:
        if rule.matches(gb_type, explanation, debug_ctx, line):
            return rule.text(gb_type, explanation, debug_ctx, line)
    for h in hints:
        if "report an issue" not in h.lower() and "file an issue" not in h.lower():
            return h
    return FALLBACK_FIX


# -- the diagnosis -----------------------------------------------------------------------------
FOLLOW_ON = ("caused by an earlier graph break",)
FOLLOW_ON_TYPES = ("Reconstruction failure",)


def short_context(debug: str) -> str:
    """Dynamo's debug context without its VariableTracker dumps: 'builtin print', 'module:
    zlib, qualname: crc32'."""
    debug = re.split(r"\s*\[(?:<class|\])|\s*<class", debug or "", maxsplit=1)[0].strip()
    if not debug or "Variable" in debug or len(debug) > 160:
        return ""
    return re.sub(r",?\s*skip reason:.*$", "", debug)


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    """One diagnosis per (user line, graph-break type), counting every hit."""
    registry = gb_registry()
    groups: dict[tuple, dict[str, Any]] = {}
    for row in ctx.r.graph_breaks(ctx.run_id):
        cid = row["compile_id"]
        code = (row.get("gb_code") or "").upper() or None
        kind = (gb_type(code) or row.get("gb_type_inner") or row.get("gb_type")
                or row["reason"])
        frame = ctx.user_frame({"filename": row.get("filename"), "lineno": row.get("lineno"),
                                "line": row.get("line")}, row.get("user_stack") or [], cid=cid)
        key = (frame.filename, frame.lineno, kind)
        g = groups.get(key)
        if g is None:
            g = groups[key] = {"order": len(groups) + 1, "rows": [], "first": row,
                               "code": code, "gb_type": kind, "frame": frame,
                               "entry": registry.get(code or "", {}), "skipped": False,
                               "cids": []}
        g["rows"].append(row)
        g["skipped"] = g["skipped"] or bool(row.get("frame_skipped"))
        if cid and cid not in g["cids"]:
            g["cids"].append(cid)
    out = []
    for g in groups.values():
        first, entry = g["first"], g["entry"]
        explanation = first.get("explanation") or entry.get("Explanation")
        hints = list(first.get("hints") or []) or [h for h in entry.get("Hints", [])
                                                   if "{" not in h]
        debug = first.get("debug_context") or ""
        count = len(g["rows"])
        fix = graph_break_fix(g["gb_type"], explanation or "", debug, g["frame"].line or "",
                              hints)
        follow_on = len(groups) > 1 and (any(m in " ".join(hints) for m in FOLLOW_ON)
                                         or g["gb_type"] in FOLLOW_ON_TYPES)
        score = cost(KIND, count, *(("frame_skipped",) if g["skipped"] else ()),
                     *(("follow_on",) if follow_on else ()), order=g["order"])
        fn = ctx.fn_name(g["cids"][0]) if g["cids"] else None
        reason = g["gb_type"]
        short = short_context(debug)
        if short:
            reason += f" ({short})"
        if g["skipped"]:
            where = f" in {fn}()" if g["cids"] else ""
            explanation = ((explanation or "") + " Dynamo could not resume after this break, "
                           f"so the whole function{where} ran in eager.").strip()
        out.append(Diagnosis(
            KIND, stage="dynamo", compile_id=g["cids"][0] if g["cids"] else None,
            reason=reason, user_frame=g["frame"], explanation=explanation, fix=fix,
            score=score, gb_code=g["code"], hints=tuple(hints), count=count,
            compile_ids=tuple(g["cids"]), torch_message=first.get("torch_message"),
            details=GraphBreakDetails(function=fn, frame_skipped=g["skipped"],
                                      gb_type=g["gb_type"], debug_context=debug,
                                      url=URL.format(code=g["code"].lower()) if g["code"]
                                      else None)))
    return out


# -- what a break costs a timed run (compdiag perf) --------------------------------------------
@hookimpl
def compdiag_limiter(diagnosis: Diagnosis, timings: Any) -> Limiter | None:
    if diagnosis.kind != KIND:
        return None
    fn = diagnosis.details.function
    parts = timings.frame_graphs(fn)
    if diagnosis.details.frame_skipped and not parts:
        return structural(KIND, 0.6, diagnosis, f"Dynamo could not resume: {fn or 'the function'}"
                          "() runs entirely in eager (no compiled graph to time)")
    impact, evidence, basis = break_cost(parts, timings.share(parts), fn, timings)
    return Limiter(KIND, impact, basis, diagnosis.reason, evidence,
                   tuple(g["compile_id"] for g in parts) or diagnosis.compile_ids,
                   diagnosis.fix, diagnosis.user_frame)


def break_cost(parts: list[dict[str, Any]], s: float, fn: str | None, timings: Any
               ) -> tuple[float, str, str]:
    """What a graph break costs, measured where possible: every graph but the last of the
    function ends at a break, so its outputs go to memory and are read back by the next graph
    instead of staying in registers; the capture timed one copy of those outputs (a write and
    a read of the same bytes). impact = that copy time over the function's compiled time, times
    the function's share of the run. Without the copy time (older stores), the structural
    guess (k-1)/k of the share."""
    k = len(parts)
    name = fn or "the function"
    ordered = sorted(parts, key=lambda g: compile_id_key(g["compile_id"]))
    crossing = ordered[:-1] if k >= 2 else ordered
    weight, fmt_time = timings.weight, timings.fmt_time
    frame_t = sum(weight(g) * g["compiled"]["median"] for g in parts)
    copies = [g.get("output_copy_s") for g in crossing]
    if frame_t > 0 and copies and all(c is not None for c in copies):
        copy_t = sum(weight(g) * c for g, c in zip(crossing, copies))
        frac = min(1.0, copy_t / frame_t)
        mb = sum((g.get("output_bytes") or 0) for g in crossing) / 1e6
        per_call = sum(c for c in copies if c is not None)
        return s * frac, (
            f"splits {name}() into {max(k, 2)} compiled graphs holding {s:.0%} of the compiled "
            f"time; the {mb:.1f} MB crossing the break take {fmt_time(per_call)} "
            f"per call to write and read back (measured copy), {frac:.0%} of these graphs' "
            "compiled time; the eager code between the graphs comes on top (not measured)"), \
            "measured"
    return s * (k - 1) / k if k >= 2 else s * 0.5, (
        f"splits {name}() into {max(k, 2)} compiled graphs holding {s:.0%} of the compiled time; "
        "nothing fuses across the break and the code between the graphs runs in eager "
        "(structural estimate: no copy timing in this store)"), "structural"
