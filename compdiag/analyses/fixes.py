"""Fix texts more than one diagnosis kind prints, so that kinds need not import each other:
the command lines a fix names (minify, bisect) and the graph-break fix rules (the graph_break
kind's, and a failure's under fullgraph=True). A failure's fix is analyses/failure_fixes.py's.

The rules are data, matched by analyses/rules.py; the wording of each fix is torch's
documented fix where torch documents one."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from compdiag.analyses.built_in_eager import CONTEXT_MANAGER_FIX, WITH_CALL_FIX, with_call
from compdiag.analyses.library_fixes import (AO_CODE, C10D_FILE, DISALLOWED_FIX, DISTRIBUTIONS,
                                             EAGER_QAT_FIX, MASKED_FIX, QUANTIZED_FIX,
                                             QUANTIZED_MODULES, SPARSE_FIX,
                                             TRACED_ALTERNATIVES, code_owner, sort_fix,
                                             VALIDATE_FIX, argument_path, c10d_fix, disable_fix,
                                             first_hint, library_fix, validating)
from compdiag.analyses.op_fixes import dynamic_output_fix, set_attribute_fix
from compdiag.analyses.program_words import or_refused
from compdiag.analyses.decorator_lines import config_patch_fix, context_decorator
from compdiag.analyses.origin_fixes import (  # noqa: F401 - re-exported: the failure kinds'
    INTERNAL_ERROR, INTERNAL_EXPLANATION, internal_error_fix, origin_fix)
from compdiag.analyses.rules import every, found
from compdiag.formats.user_code import module_name
from compdiag.analyses.scalar_reads import (  # re-exported: the kinds' patterns and fixes
    ITEM_FIX, NUMPY_CALL, SCALAR_READ_CALL, TOLIST_FIX, scalar_read_fix as _scalar_read)
from compdiag.analyses.random_draw_words import NUMPY_RANDOM_FIX, RANDOM_DRAW_FIX
from compdiag.analyses.runtime_fixes import (  # noqa: F401 - re-exported: the failure kind's
    runtime_fix, runtime_why)
from compdiag.formats.code_text import called
from compdiag.formats.command_line import command_line


# What a fix says for bisect where the run has no command to re-run (an imported log: no
# placeholder command, which would not run as printed; probes26).
NO_RERUN = ("compdiag bisect over the program that wrote this log (the run was imported: run "
            "the program under compdiag run, then bisect that run)")


def commands(run_id: int, argv: list[str], store: str | None) -> tuple[str, str]:
    """The minify command line a fix names for this run, and its bisect in backticks, as they
    run pasted (formats.command_line: shell-quoted, `--store` for a store other than the
    default). `compdiag bisect RUN` re-runs the run's own argv in its cwd; a run with no argv
    (an imported log) has no command to re-run: NO_RERUN's words instead."""
    minify = command_line("minify", run_id, store=store)
    bisect = f"`{command_line('bisect', run_id, store=store)}`" if argv else NO_RERUN
    return minify, bisect


# -- graph breaks (the graph_break kind; a failure under fullgraph=True) ------------------------
@dataclass(frozen=True)
class Rule:
    """One of `words` in the graph-break type, or its explanation and debug context; with
    `on_line`, in the user's source line (analyses/rules.py). `fix` is the text, or a function
    of (gb_type, explanation, debug context, line) for a fix that names what the break
    names."""

    words: tuple[str, ...]
    fix: str | Callable[[str, str, str, str], str]
    on_line: bool = False
    # the calls on the user's line the fix tells them to change (`.item()`): a break inside
    # library code from a line making none of them gets the library's fix (library_fix)
    user_calls: tuple[str, ...] = ()
    # the words as written: `Generator` (torch's RNG state) is not `generator` (Python's)
    case: bool = False

    def matches(self, gb_type: str, expl: str, ctx: str, line: str) -> bool:
        texts = (line,) if self.on_line else (gb_type, expl, ctx)
        if self.case:
            text = " ".join(t for t in texts if t)
            return any(w in text for w in self.words)
        return found(self.words, *texts)

    def text(self, gb_type: str, expl: str, ctx: str, line: str) -> str:
        return self.fix if isinstance(self.fix, str) else self.fix(gb_type, expl, ctx, line)


TORCH_GENERATOR_FIX = (
    "A torch.Generator (random-number state) cannot be created or seeded inside the compiled "
    "function: create and seed it before the call and pass it in (as an argument or a "
    "global), or use the global RNG (`torch.manual_seed(...)` outside the compiled "
    "function) instead of a generator of its own.")
TORCH_GENERATOR_ARG_FIX = (
    "A torch.Generator passed to an op (`generator=...`) cannot go into the compiled graph: "
    "draw the random numbers with it before the compiled call and pass the tensor in, or use "
    "the global RNG (seeded with `torch.manual_seed(...)` outside the compiled function) "
    "inside it.")
BRANCH_FIX = ("The `if` depends on a tensor's value, which is unknown while tracing. Compute "
              "both branches and select with `torch.where(cond, a, b)`, or use `torch.cond("
              "pred, true_fn, false_fn, (x,))` so one graph holds both branches.")
NUMPY_BRANCH_FIX = ("The `if` tests a NumPy value (a NumPy scalar is a 0-d array to Dynamo, "
                    "traced like a tensor, not a constant like a Python float): pass it as a "
                    "Python number (`float(t)`, `t.item()` before the call) so the branch is "
                    "decided when tracing, or as a tensor and select with `torch.where`.")


def _in_context(word: str, then: str, otherwise: str) -> Callable[[str, str, str, str], str]:
    """A fix chosen by Dynamo's debug context (a data-dependent branch's names the value the
    `if` tested: `attempted to jump with NumpyNdarrayVariable()`); an `assert` on the user's
    line has its own (probes32d tabular_category_check: the `if` fix did not apply)."""
    return lambda gb_type, explanation, debug, line: (
        ASSERT_FIX if (line or "").lstrip().startswith("assert ") else
        WHILE_FIX if (line or "").lstrip().startswith("while ") else
        then if word in (debug or "") else otherwise)


# probes39b kepler_newton_while_tol: a Newton iteration `while dE.abs().max() > tol:` got the
# `if` fix; a fixed number of steps that freeze the converged values compiled with no break
WHILE_FIX = ("The `while` loop's condition depends on a tensor's value, which is unknown while "
             "tracing. Run a fixed number of iterations instead (the most the loop needs), "
             "freezing what has converged: `x = torch.where(done, x, x - step)`; or run the "
             "loop in eager and compile its body (or use "
             "`torch._higher_order_ops.while_loop` to keep it in one graph).")


DEEPCOPY_FIX = ("Use `x.clone()` (or `.detach().clone()`) instead of copy.deepcopy on tensors "
                "inside compiled code; deep-copy modules before compiling, not inside.")
# probes38d eval_output_asdict_fullgraph: the user's line calls dataclasses.asdict, which
# deep-copies every field; the fix named a deepcopy the program never wrote
ASDICT_FIX = ("`dataclasses.asdict` deep-copies every field (copy.deepcopy), which Dynamo does "
              "not trace for tensors: build the dict from the fields yourself, `{f.name: "
              "getattr(out, f.name) for f in dataclasses.fields(out)}` (add `.clone()` where "
              "the copy mattered).")


ASSERT_FIX = ("An `assert` on a tensor's value needs that value in Python, which is unknown "
              "while tracing. Check it inside the graph with `torch._assert_async(cond, "
              "\"message\")` (it raises when the compiled code runs), or check the inputs "
              "before the compiled call, in eager.")


PRINT_FIX = ("Remove the print() from the compiled function or log after the call returns; to "
             "keep it, let Dynamo move it to the end of the graph with "
             "`torch._dynamo.config.reorderable_logging_functions.add(print)`, or guard it with "
             "`if not torch.compiler.is_compiling():`.")
# probes34e focal_debug_print: a reorderable print in a function the compiled one calls (a
# module's forward) is dropped without a word in torch 2.13: no break, and no line printed
PRINT_FIX_CALLED = ("Remove the print() from the function the compiled one calls, or return "
                    "the value and print it after the compiled call returns; or guard it with "
                    "`if not torch.compiler.is_compiling():` (it then prints in eager only). "
                    "`reorderable_logging_functions.add(print)` does not help here: a "
                    "reordered print in a called function may be dropped, and inside a "
                    "checkpoint or torch.cond region it cannot be reordered at all.")
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


_SKIP_CTX = re.compile(r"module: ([\w.]+|<unknown module>), qualname: ([\w.<>]+)")


_QUALNAME = re.compile(r"qualname: ([\w.<>]+)")
_IN_FILE = re.compile(r"(?:in file|filename:) `?([^`\s,]+\.py)`?")
# torch's own functions Dynamo skips by design (its skip lists): "Dynamo developers have
# intentionally marked that the function `GradScaler.scale` should not be traced"
_BY_DESIGN = ("intentionally marked", "MOD_SKIPLIST")


# an argument Dynamo keeps as an opaque Python object (`UserDefinedObjectVariable(Cls)`)
_OPAQUE = re.compile(r"UserDefinedObjectVariable\((\w+)\)")


def _proxy_fix(gb_type: str, expl: str, ctx: str, line: str) -> str:
    """An op called on an object Dynamo cannot put into the graph: the object's class, and,
    for a torch.Tensor subclass, what makes one traceable (probes27 subclass_no_flatten: a
    `__torch_dispatch__` wrapper without `__tensor_flatten__`, whose fix said to give up on
    compiling the line)."""
    m = _OPAQUE.search(f"{ctx} {expl}")
    cls = f"`{m.group(1)}`" if m else "this argument"
    return (f"Dynamo cannot pass {cls} into the graph (it keeps it as an opaque Python "
            "object). If it is a torch.Tensor subclass, make it traceable: implement "
            "`__tensor_flatten__` (its inner tensors' attribute names and a context) and "
            "`__tensor_unflatten__` (rebuild it from them), as torch's wrapper subclasses do; "
            "otherwise pass the tensors it holds instead of the object, or move this call "
            "into a `torch.compiler.disable` helper.")


# an iterator or dict view made outside the compiled function and passed in: "missing
# tp_iter (tp_iter_impl not implemented for zip)" (probes41a multitask_zip_losses,
# vae_loss_weights_items: `loss(zip(preds, targets))`, `loss(WEIGHTS.items())`; the fix said
# to move the loop out or disable it, which left the break or nothing to compile)
_NO_TP_ITER = re.compile(r"tp_iter_impl not implemented for (\w+)")
_MADE_BY = {"dict_items": "`d.items()`", "dict_keys": "`d.keys()`", "dict_values":
            "`d.values()`", "odict_items": "`d.items()`", "odict_keys": "`d.keys()`",
            "odict_values": "`d.values()`"}


def _iterator_arg_fix(gb_type: str, expl: str, ctx: str, line: str) -> str:
    m = _NO_TP_ITER.search(f"{gb_type} {expl} {ctx}")
    kind = m.group(1) if m else "iterator"
    made = _MADE_BY.get(kind, f"`{kind}(...)`")
    return (f"The `{kind}` object was made outside the compiled function and passed in: "
            "Dynamo keeps such an object opaque and cannot iterate it, though it traces "
            f"{made} made inside. Pass what it iterates (the lists, the dict) and call "
            f"{made} inside the compiled function; the loop then compiles with no break.")


# a logger's method called on the user's line: `log.info(`, `self.logger.warning(`
_LOG_CALL = re.compile(r"([A-Za-z_][\w.]*)\.((?:info|warning|warn|debug|error|critical|"
                       r"exception|log)(?:_once)?)\(")  # (transformers' `warning_once`)


def _logging_fix(gb_type: str, expl: str, ctx: str, line: str) -> str:
    """The logging break's fix, naming the logger method the user's line calls (probes26:
    `logger.info` named a logger the program calls `log`). A logger's method is not a
    reorderable logging function (Dynamo reorders plain functions only; torch 2.13 broke on
    `log.info` in that set as before): the set that takes it is `ignore_logging_functions`,
    which torch's own hint names, and it skips the call."""
    m = _LOG_CALL.search(line or "")
    method = f"{m.group(1)}.{m.group(2)}" if m else "logger.info"
    return ("Move the logging call out of the compiled function (return what it logs and log "
            "it after the call), or guard it with `if not torch.compiler.is_compiling():`; to "
            "compile through it without a break, "
            f"`torch._dynamo.config.ignore_logging_functions.add({method})` (compiled calls "
            "then skip it and log nothing).")


def _library_logging_fix(lib: Mapping[str, Any]) -> str:
    """What compiles through a library's logging call (probes41c
    hf_gpt2_lmhead_loss_type_break: transformers' `logger.warning_once` in its loss_function;
    the fix named `logger.info`, a logger the program does not have): that logger's method,
    named by its module, in ignore_logging_functions; nothing where the line names none."""
    m = _LOG_CALL.search(str(lib.get("line") or ""))
    module = module_name(lib.get("filename"))
    if not (m and module) or not m.group(1).isidentifier() or m.group(1) == "logging":
        return ""  # (`self.logger.warning`, `logging.warning`: no module-level logger)
    return (" To compile through it without a break: `torch._dynamo.config."
            f"ignore_logging_functions.add({module}.{m.group(1)}.{m.group(2)})` (compiled calls "
            "then skip it and log nothing).")


# probes34a posenc_variable_classifier: `x + Variable(self.pe[:, :n], requires_grad=False)`
# (old positional-encoding code): dropping the wrapper gave 0 breaks and the same output
VARIABLE_FIX = ("`torch.autograd.Variable` is a deprecated wrapper (every tensor is a Variable "
                "since torch 0.4) that Dynamo does not trace: drop it and use the tensor "
                "itself (a buffer needs no `requires_grad=False`; `.detach()` cuts a tensor "
                "from autograd where that was the point).")


# A torch context manager entered by hand through contextlib.ExitStack.enter_context: Dynamo
# traces `with torch.no_grad():` but not ExitStack's own call of `__enter__` (probes40a
# exitstack_frozen_backbone, pytorch#109309: "keep set_grad_enabled.__enter__ outside" where
# a plain `with` inside forward gave 0 breaks).
EXIT_STACK_SAID = ", entered through contextlib.ExitStack"
EXIT_STACK_FIX = ("`{cm}` is entered through contextlib.ExitStack (`enter_context`), which "
                  "Dynamo does not trace; it traces the same context manager in a `with` "
                  "statement. Replace the ExitStack with `with` statements, a conditional one "
                  "where it was optional: `with torch.no_grad() if freeze else "
                  "contextlib.nullcontext():`.")


def exit_stack_entry(line: str | None) -> str | None:
    """The context manager a line enters through `ExitStack.enter_context(...)` ("" where its
    expression is not on the line); None where the line enters none that way."""
    if "enter_context(" not in (line or ""):
        return None
    entered = str(line).split("enter_context(", 1)[1].rstrip()
    return entered[:-1] if entered.endswith(")") else ""


def _skipped(gb_type: str, expl: str, ctx: str, line: str) -> str:
    m = _SKIP_CTX.search(ctx) or _SKIP_CTX.search(expl)
    module, qualname = (m.group(1), m.group(2)) if m else ("", "")
    if module == "<unknown module>":  # a C extension's (pybind11) function: its name only
        module = ""
    target = (f"{module}.{qualname}" if module else qualname) if m else "this function"
    if "sparse" in target or module.startswith("torch.masked"):  # no builtin to move out
        return SPARSE_FIX if "sparse" in target else MASKED_FIX  # (probes33g)
    if "_LegacyVariableBase" in target:  # `Variable(x)`: a wrapper to drop, not to move out
        return VARIABLE_FIX
    named = _QUALNAME.search(ctx or "")
    if (m or named) and found(_BY_DESIGN, expl, ctx):
        # a Python function in torch's skip lists, never a builtin; torch's own file for it
        # can be another module's than the name's (a scheduler's wrapper of optimizer.step)
        name = m.group(2) if m else named.group(1)
        if name == "disallow_in_graph" and called(line):  # torch marks the call untraceable
            return DISALLOWED_FIX.format(call=called(line))
        file = _IN_FILE.search(expl) or _IN_FILE.search(ctx or "")
        stem = os.path.splitext(os.path.basename(file.group(1)))[0] if file else ""
        wrapper = (f"; here a wrapper torch's `{stem}.py` put around it at run time"
                   if stem and module and stem != module.rsplit(".", 1)[-1] else "")
        if name in TRACED_ALTERNATIVES:  # torch traces another API for the same thing
            return TRACED_ALTERNATIVES[name]
        entered = exit_stack_entry(line)
        if name.endswith(".__enter__") and entered is not None:
            return EXIT_STACK_FIX.format(cm=entered or name[:-len(".__enter__")])
        return (f"`{name}` is {code_owner(file.group(1) if file else None)} Dynamo skips on "
                f"purpose (it is not meant to be traced{wrapper}), so calling it inside the "
                "compiled function splits the graph there: keep the call outside, compiling "
                f"the model's forward (or the loss) and calling `{name}` in the eager code "
                "around it. `@torch._dynamo.dont_skip_tracing` forces tracing into it, with "
                "more breaks likely.")
    if module.lstrip("_") == "warnings":
        # (probes45d ddp_fullgraph_truncate_warn_rank1: "configure warnings.filterwarnings
        # once at start-up" was offered, and the call broke the graph under a filter too)
        return ("warnings.* calls and context managers are not traceable: make the call (or "
                "the `with warnings.catch_warnings():` block) outside the compiled function: "
                "return what decides it and warn in the eager code around the call. A warnings "
                "filter does not help: the call itself splits the graph.")
    if module in ("inspect", "sys", "traceback") and ("frame" in qualname or
                                                      "stack" in qualname):
        return ("Stack introspection (inspect.stack, sys._getframe, traceback) cannot be "
                "traced: compute it once outside the compiled function and pass the result in.")
    if module == "time":
        return TIME_FIX
    if qualname.startswith("Random.") or module.lstrip("_") == "random":
        return RANDOM_DRAW_FIX
    return (f"`{target}` is a builtin or C-extension function Dynamo will not trace. Call it "
            "outside the compiled region and pass its result in (a number as a tensor, "
            "`torch.tensor(value)`: a Python float argument is a constant to Dynamo, and each "
            "new value recompiles); if it must stay, wrap it as a "
            "custom op (`torch.library.custom_op`, with a fake implementation) so it stays in "
            "the graph, or use `torch.compiler.allow_in_graph` if it only does tensor math.")


# Python containers built or copied through a call Dynamo refuses, each with the spelling it
# traces, read before the break types' rules (the type, "marked as skipped", is any skipped
# function's) (probes45a namespace_output_heads: torch's hint "avoid calling SimpleNamespace"
# named nothing to use instead; copy_loss_weights_curriculum: `copy.copy(d)` reaches
# dict.copy, marked skipped, where `dict(d)` traces)
SPELLINGS: tuple[Rule, ...] = (
    Rule(("types.SimpleNamespace",),
         "Build a container Dynamo traces instead of `types.SimpleNamespace(...)`: a dict, "
         "a `typing.NamedTuple` or a `@dataclass` instance with the same fields, so the "
         "values stay in the graph; the caller reads them by key or field."),
    Rule(("qualname: dict.copy", "qualname: list.copy", "qualname: set.copy"),
         "`copy.copy(...)` of a Python container reaches its C `.copy` method, which Dynamo "
         "skips: copy it with a spelling Dynamo traces, `dict(d)` or `{**d}` for a dict, "
         "`list(x)` or `x[:]` for a list, `set(s)` for a set (a shallow copy, as "
         "`copy.copy` makes)."),
)


RULES: tuple[Rule, ...] = (
    Rule(("tp_iter_impl not implemented for",), _iterator_arg_fix),
    # probes47d eval_probs_out_buffer (test_misc's out variants with resizing): a disabled
    # helper broke the graph at every call, full batches too
    Rule(("Shape mismatch with out= tensor",),
         "The `out=` tensor's shape is not the result's (a buffer sized for the largest batch, "
         "given a smaller one), and Dynamo does not trace the resize `out=` would do: pass "
         "`out=` a tensor of the result's shape, a slice of the buffer (`buf[:x.shape[0]]`), "
         "or drop `out=` and copy the result where it must go."),
    Rule(("Failed to set tensor attribute",), set_attribute_fix),
    # probes40a rmsnorm_optional_fused_import (sgl-project/sglang#39054): torch's hint ("your
    # code may error in eager") was the fix; the import is expected to fail, an optional
    # package probed inside the forward, and a probe once at import time gave no break
    Rule(("Import failure",),
         "An `import` that fails inside the compiled code (an optional package probed with "
         "`try: import ... except ImportError`) breaks the graph at every call, even behind "
         "`functools.lru_cache` (Dynamo traces into the cached function). Probe once at module "
         "level (`HAS_EXT = importlib.util.find_spec(\"name\") is not None`, or the try/import "
         "there) and read that constant in the compiled function."),
    # probes34b jit_scripted_cell, probes34a scripted_rope_fullgraph: torch's hint ("find a
    # workaround") was the fix; the plain module gave 0 breaks and the same output
    Rule(("torch.jit.script/freeze modules unsupported",),
         "Use the plain nn.Module inside the compiled function, not its TorchScript version "
         "(`torch.jit.script`/`torch.jit.freeze` run in the TorchScript runtime, which Dynamo "
         "cannot trace): keep the eager module for torch.compile and script a copy only for "
         "export."),
    # probes43j qtensor_per_channel_weight_sim: torch's hint ("your code may error in eager")
    # was the fix; eager ran, the op has no fake-tensor implementation
    Rule(("UnsupportedFakeTensorException",), lambda gb, expl, ctx, line: (
        QUANTIZED_FAKE_FIX if "quantized" in f"{expl} {ctx}" else NO_FAKE_FIX)),
    Rule(("dispatch mode present",),
         "Dynamo does not trace while a TorchDispatchMode is active (FlopCounterMode, a "
         "debug or logging mode): call the compiled function outside the mode, and measure "
         "with the mode on the uncompiled model (`model`, not `torch.compile(model)`). Up to "
         "torch 2.13 a skip made under the mode is remembered for the function's code, so "
         "later calls outside it stay eager too (pytorch/pytorch#186085): make the first call "
         "outside the mode."),
    Rule(("logging.Logger", "logger method"), _logging_fix,
         # the logger is the user's only where their line logs; else a library's (probes25
         # hf_gpt2_grad_ckpt_train: `logger.info` named a logger the program does not have)
         user_calls=("logger", "logging", "log.", ".info(", ".warning(", ".debug(", ".error(",
                     "warn(")),
    Rule(("builtin operator `print`", "builtin print"), PRINT_FIX),
    Rule(("Data-dependent branching", "generic_jump"),
         _in_context("NumpyNdarrayVariable", NUMPY_BRANCH_FIX, BRANCH_FIX),
         # the branch is the user's only where their line branches; else a library's
         user_calls=("if ", "while ", " and ", " or ", "assert ", " else ")),
    Rule(("Tensor.item()", "_local_scalar_dense"), _scalar_read,
         user_calls=(".item(", ".tolist(", "int(", "float(", "bool(", "if ", "while ", " and ",
                     " or ")),
    Rule(("tolist()",), TOLIST_FIX, user_calls=(".tolist(",)),
    Rule(("numpy function", "numpy"), lambda gb, expl, ctx, line: NUMPY_RANDOM_FIX if (
        "RandomState." in ctx or "numpy.random" in ctx or "np.random" in line) else
         "This numpy call has no torch._numpy equivalent: use the torch function (e.g. "
         "torch.save/torch.fft/...) on the tensor, or do the numpy work outside the compiled "
         "function."),
    Rule(("Dynamic shape operator", "output shape depends on input tensor data"),
         lambda gb, expl, ctx, line: dynamic_output_fix(ctx)),
    Rule(("torch.compiler.disable",), lambda gb, expl, ctx, line: disable_fix(expl)),
    Rule(("torch._dynamo.graph_break()",),
         "An explicit `torch._dynamo.graph_break()` is in the code: remove it (it is a "
         "debugging aid) unless you mean to split the graph here.",
         # yours only where your line calls it; else a library's own, by design (torch's
         # optimizer's `_use_grad`: probes26's "remove it" about torch's code)
         user_calls=("graph_break",)),
    # torch's hint, `compiled_autograd = True`, fails where backward() runs outside compiled
    # code ("BackwardState requires CompiledAutograd") (probes28b grad_norm_monitor)
    Rule(("backwards hooks require compiled autograd",),
         "A module backward hook (`register_full_backward_hook`) on a module inside the "
         "compiled model splits the graph at that module. To monitor gradients, read them after "
         "`loss.backward()`, outside the compiled model (`module.weight.grad.norm()`), and drop "
         "the module hook. torch's hint, `torch._dynamo.config."
         "compiled_autograd = True`, needs `backward()` inside the compiled region and then "
         "compiles the hook as well."),
    Rule(("Tensor.backward()",),
         "Compile the forward/loss only and call `loss.backward()` outside the compiled "
         "function (compiled autograd, `torch._dynamo.config.compiled_autograd = True`, "
         "compiles the backward itself)."),
    Rule(("copy.deepcopy",), lambda gb, expl, ctx, line: ASDICT_FIX if "asdict(" in (
        line or "") else DEEPCOPY_FIX),
    # probes39f ctc_cudnn_flags_skip: `with torch.backends.cudnn.flags(...)`, a
    # _GeneratorContextManager, got the generator rule's `next(gen)` fix
    Rule(("Unsupported context manager", "_GeneratorContextManager"), CONTEXT_MANAGER_FIX,
         # a `with` in library code the line calls is not the user's to move (probes36b
         # gpt2_attn_entropy_fullgraph: transformers' hook-installation lock)
         user_calls=("with ",)),
    Rule(("sort with non-constant key",), sort_fix),  # probes33d beam_search_sorted
    # probes29d allreduce_async_metric: dropping async_op=True gave one graph, no break
    Rule(("async_op=True",),
         "Call the collective without `async_op=True` (and drop the `.wait()` on its Work "
         "handle): Dynamo traces the synchronous call into the graph as a functional "
         "collective; the Work handle is what it cannot trace."),
    # probes29a gcn_sparse_adj: torch's hint (create it outside) does not help a sparse
    # tensor passed in; Dynamo skips the whole function on any sparse tensor it meets (and
    # the constructors' break, probes33g bow_sparse_docs, is no builtin to move out)
    Rule(("sparse Tensor",), SPARSE_FIX),
    # probes29a meters_subclass_path: torch's hint names `__class__`, never touched by the user
    Rule(("Unsupported tensor subclass", "tensor subclass overridden"),
         "Dynamo cannot trace this call through the tensor subclass's `__torch_function__`: "
         "pass a plain tensor into the compiled function (`x.as_subclass(torch.Tensor)` "
         "before the call) and wrap the result again outside it."),
    # the same probe: raised in torch's code, in a frame an earlier break sent to eager
    Rule(("Observed exception",), or_refused(  # torch's own refusal: its advice
         "Dynamo traced an exception raised here (see the debug context). Check whether eager "
         "raises it too (`torch.compiler.set_stance(\"force_eager\")`): if it does, fix the "
         "error itself or catch it inside the compiled function; if eager runs on, the "
         "exception comes from tracing code Dynamo cannot follow (a graph break before it "
         "sent this call to eager): fix that break.")),
    Rule(("Failed to trace builtin operator",), _builtin),
    # torch 2.15 names these itself (GB0569, GB9193); earlier ones said "builtin str" and
    # "marked as skipped ... module: time".
    Rule(("repr() on tensor", "str() on tensor"), FORMAT_FIX),
    Rule(("Call to a time function",), TIME_FIX),
    # probes32a dcgan_sequential_compile: `nn.Sequential(...).compile()` compiled nothing
    Rule(("torch.compile was given torch's own code",),
         "torch.compile wrapped a callable of torch's own (a `.compile()` on an nn.Sequential "
         "or a torch layer wraps its `_call_impl`): Dynamo skips torch's files as a starting "
         "point, so nothing was compiled. Compile the module object instead, `model = "
         "torch.compile(model)`, which traces into torch's layers, or compile a module or "
         "function of your own that calls it."),
    Rule(("marked as skipped", "skipfiles", "skipped function"), _skipped),
    # A torch.Generator (an RNG state, torch._C.Generator) is not a Python generator: Dynamo
    # cannot create one or call its methods inside the graph (pytorch#88576).
    Rule(("torch._C.Generator", "torch.Generator"), TORCH_GENERATOR_FIX),
    # one passed to an op (`torch.randn(..., generator=g)`): Dynamo cannot put it in the graph
    Rule(("UserDefinedObjectVariable(Generator)",), TORCH_GENERATOR_ARG_FIX, case=True),
    # probes36e schedule_generator_fullgraph: a list passed in and advanced inside recompiled
    # every step on its position; `next()` outside, the value passed as a tensor, did not
    Rule(("generator",),
         "Take the values out of the generator outside the compiled function: call "
         "`next(gen)` before each call and pass the value in (a tensor, so a new value needs "
         "no recompile); a list or tuple passed in and advanced inside recompiles on its "
         "position every call. A generator the function makes and consumes whole can be a "
         "loop that builds a list instead."),
    # probes39d afn_inplace_mark_dirty_break: `return x.clamp_(...)` after ctx.mark_dirty(x);
    # torch's hint (check eager) did not name the change that worked
    Rule(("mark_dirty input not returned",),
         "Return from the Function's `forward` the very tensor it marks dirty: do the in-place "
         "op, then `return x` (Dynamo does not take the in-place op's result for that input, "
         "so it cannot trace `apply` and runs it in eager)."),
    # probes39b implicit_euler_functional_jacobian: torch's hint blamed an earlier break
    # that did not exist; torch.func.jacrev compiled with no break
    Rule(("autograd.functional.",),
         "Use torch.func's transforms, which Dynamo traces: `torch.func.jacrev(f)(x)` (or "
         "`jacfwd`) for `torch.autograd.functional.jacobian(f, x)`, `torch.func.hessian`, "
         "`torch.func.vjp`/`jvp`; torch.autograd.functional cannot be traced.", on_line=True),
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
    # last: an op on an object Dynamo keeps opaque (a more specific rule above wins)
    Rule(every("Failed to convert args/kwargs to proxy", "UserDefinedObjectVariable("),
         _proxy_fix),
)
# A type that names no cause by itself: the explanation must decide (print, str, open, ...).
_NEEDS_EXPLANATION = "Failed to trace builtin operator"
# probes36e cached_property_attn_cfg: `self.cfg.scale`, a functools.cached_property, whose
# getter takes an RLock on Python 3.11 (Dynamo cannot enter it), broke the graph at the user's
# line, with a fix to move the `with` block, which is the standard library's
CACHED_PROPERTY_FIX = ("The attribute read here is a `functools.cached_property`, whose getter "
                       "takes a lock (Python before 3.12) that Dynamo cannot enter: compute it "
                       "once and store it as a plain attribute (in `__init__`), or read it "
                       "before the compiled call and pass the value in.")
FALLBACK_FIX = ("Move this statement out of the compiled function, or wrap it in a "
                "torch.compiler.disable helper so that only it runs in eager.")


NO_FAKE_FIX = ("This op has no fake-tensor (meta) implementation, so Dynamo cannot trace it "
               "(eager runs it): move it out of the compiled code, into a helper decorated "
               "with `@torch.compiler.disable` (one graph break per call), or compute it with "
               "ops that have one; for your own op, register a fake kernel "
               "(`@torch.library.register_fake`).")
QUANTIZED_FAKE_FIX = (
    "Quantized tensors (`torch.quantize_per_channel` / `quantize_per_tensor`) have no fake-"
    "tensor support, so Dynamo cannot trace them (eager runs them): simulate the quantization "
    "with float ops that compile, `torch.fake_quantize_per_channel_affine(w, scale, "
    "zero_point, axis, qmin, qmax)` (or round, clamp and rescale by hand), or move the "
    "quantize/dequantize out of the compiled code.")


_MODULE_CALL = "torch/nn/modules/module.py"
_MODULE_CALLS = ("_call_impl", "_wrapped_call_impl", "__call__")


def graph_break_fix(gb_type: str, explanation: str, debug_ctx: str, line: str,
                    hints: list[str] | tuple[str, ...],
                    lib_frame: Mapping[str, Any] | None = None, called: bool = False) -> str:
    """The concrete change for a graph break; torch's first specific hint when no rule knows.
    `lib_frame`: the library code the break is inside (ingest's graph_breaks.lib_frame), when
    the user's line only calls into it; `called`: the break's line is in a function the
    compiled one calls (Dynamo inlined it), not in the compiled frame itself."""
    where = str((lib_frame or {}).get("filename") or "").replace("\\", "/")
    if where.endswith(_MODULE_CALL) and (lib_frame or {}).get("name") in _MODULE_CALLS:
        # nn.Module's call plumbing (a submodule's `self.layer(x)` inside the compiled
        # forward), never library code the user's line calls (probes45b
        # bert_lora_tenant_idx_scalar_getitem: "the break is inside `_call_impl`", where the
        # op at the user's line was the cause)
        lib_frame, where = None, ""
    if not where and with_call(gb_type, line):
        return WITH_CALL_FIX
    if where.endswith(C10D_FILE):
        return c10d_fix(lib_frame or {})
    if AO_CODE in where or "torch.ao.quantization" in (debug_ctx or ""):  # eager-mode quant.
        return QUANTIZED_FIX if QUANTIZED_MODULES in where else EAGER_QAT_FIX
    if DISTRIBUTIONS in where and validating(lib_frame or {}, line):
        return VALIDATE_FIX
    if where.endswith("/functools.py") and (lib_frame or {}).get("name") == "__get__":
        return CACHED_PROPERTY_FIX  # functools.cached_property's lock (Python 3.11)
    if context_decorator(lib_frame, explanation) == "ConfigPatch":
        return config_patch_fix(line)  # `@config.patch(...)` on the compiled function
    if lib_frame and argument_path(lib_frame):  # the caller's argument chose the path
        return library_fix(lib_frame, hints, line)
    rule = _rule_for(gb_type, explanation, debug_ctx, line)
    if rule is not None and lib_frame and not any(c in (line or "") for c in _user_calls(
            rule, explanation, debug_ctx)):
        return library_fix(lib_frame, hints, line) + (
            _library_logging_fix(lib_frame) if rule.fix is _logging_fix else "")
    if rule is not None:
        fix = rule.text(gb_type, explanation, debug_ctx, line)
        return PRINT_FIX_CALLED if called and fix == PRINT_FIX else fix
    return first_hint(hints) or FALLBACK_FIX


def _user_calls(rule: Rule, explanation: str, debug_ctx: str) -> tuple[str, ...]:
    """The calls on the user's line that make `rule`'s fix the user's: its own, an untraceable
    builtin's (`min(`), or "" (any line) for a rule whose fix holds wherever the break is."""
    if rule.fix is _builtin:
        name = _BUILTIN_NAME.search(explanation + " " + debug_ctx)
        return (f"{name.group(1)}(",) if name else ("",)
    return rule.user_calls or ("",)


def _rule_for(gb_type: str, explanation: str, debug_ctx: str, line: str) -> Rule | None:
    spelled = next((r for r in SPELLINGS if r.matches(gb_type, explanation, debug_ctx, line)),
                   None)
    if spelled is not None:
        return spelled
    if gb_type != _NEEDS_EXPLANATION:
        for rule in RULES:
            if rule.matches(gb_type, "", "", ""):
                return rule
    return next((r for r in RULES if r.matches(gb_type, explanation, debug_ctx, line)), None)
