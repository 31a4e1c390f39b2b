"""A recompile in words: what changed, why Dynamo recompiles on it, and the fix, per guard
category (the recompile kind's rules, as data and the small functions that fill them in).

Split from analyses/diagnoses/recompiles.py, which keeps what reads the store (which guard
failed, for which function, how often) and ranks it; this module holds only the words, so a
new category or fix is one entry here. `{src}` is the guarded expression, `{where}` the line."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.limit_words import LIMIT_ENDED, LIMIT_FIX, LIMIT_RUNS_ON  # noqa: F401
from compdiag.analyses.parameter_words import PARAMETER_REQUIRES_GRAD_FIX, PARAMETER_STRIDE_FIX
from compdiag.analyses.recurring_fixes import recurring_fix
from compdiag.formats.guard_source import in_user_spelling, input_field, nested_input

# -- what changed, why it recompiles, the fix ({src} the guarded expression, {where} the
# function, {tensor} the tensor's name, {dim} the dimension) ------------------------------------
REASONS = {
    "size": "size {src} changed", "stride": "stride {src} changed",
    "dtype": "dtype of {src} changed", "device": "device of {src} changed",
    "requires_grad": "requires_grad of {src} changed",
    "global_state": "global state {src} changed", "training": "train/eval mode {src} changed",
    "global": "global {src} changed", "value": "Python value {src} changed",
    "size_branch": "a branch on the expression {src} took the other way",
    "size_range": "size {src} left the range its dynamic graph holds for",
    "size_loop": "a Python loop's trip count {src} changed (the loop is unrolled for each "
                 "size)",
    "size_order": "which of the tensors in {src} is longest changed (Dynamo guards on how "
                  "their sizes compare)",
    "subclass_metadata": "the flatten context (metadata) of tensor subclass {src} changed",
    "length": "{src} changed",
    "none": "{src} changed between None and a value",
    "backend": "the backend changed",
    "replaced": "{src} was replaced or removed since the compile",
}
EXPLANATIONS = {
    "size_loop": "{where} loops in Python over a count made from a dynamic size ({src}): "
                 "Dynamo unrolls the loop into the graph, one copy of its body per iteration, "
                 "so each new count is a graph of its own.",
    "size_order": "{where} compares the sizes of the tensors in {src} with each other (padding "
                  "to the longest, a max over their lengths): the sizes stay dynamic, but "
                  "Dynamo guards on the outcome of each comparison, so a call whose longest "
                  "tensor is another one compiles again, once per ordering.",
    "size_branch": "{where} branches in Python on {src}, an expression of a dynamic size "
                   "(or number): Dynamo keeps it dynamic but guards on the branch's outcome, so "
                   "an input for which it comes out the other way compiles again (once per "
                   "outcome).",
    "size": "A guard on the size {src} failed: {where} was compiled for one size and called "
            "with another.",
    "subclass_metadata": "{src} is a tensor subclass whose __tensor_flatten__ returns a "
                         "context (its second value) that Dynamo guards by ==: {where} was "
                         "compiled for one context, and a {src} whose context holds another "
                         "value (a Python number such as a scale, computed anew each step) "
                         "compiles again.",
    "size_range": "{where} was compiled with {src} dynamic, but for a range of sizes only: "
                  "torch bounded the size where the code compared it (a Python `if` on the "
                  "size, a torch._check, an op whose shape rule needs the bound), and guards "
                  "on the range, so a size outside it compiles again (once per range).",
    "stride": "A guard on the stride {src} failed: an input with a different memory layout (a "
              "transposed or sliced view) reached the compiled code.",
    "dtype": "The tensor {src} arrived with a different dtype; each dtype needs its own graph.",
    "device": "The tensor {src} arrived on a different device.",
    "requires_grad": "The tensor {src} changed requires_grad; graphs with and without autograd "
                     "are different graphs.",
    "global_state": "Global torch state ({src}) differs from when {where} was compiled.",
    "training": "{src} changed: the module switched between train() and eval().",
    "global": "The global {src} changed value; Dynamo baked the old value into the graph.",
    "value": "The Python value {src} changed; Dynamo specialises on Python scalars and "
             "constants.",
    "length": "{src} changed: the length of a list/tuple argument is part of the graph.",
    "identity": "A different object was passed as {src}; Dynamo guards on its identity.",
    "replaced": "Dynamo's guard could not find {src} where the compile found it (torch reports "
                "the lookup's error as the failed guard): the program assigned or deleted it "
                "since, e.g. set a module where a plain value or None was, which moves it from "
                "the instance's __dict__ to _modules.",
    "none": "{src} was None when {where} was compiled and is not now (or the reverse): "
            "Dynamo guards on whether it is None, so the value set since (e.g. by the module "
            "itself on its first call) needs a graph of its own.",
    "type": "{src} changed type.",
    "backend": "{where} was compiled under one backend and is now called under another: "
               "torch.compile of the same function with another backend (or a new backend "
               "callable at every call) needs a compile of its own.",
}
SIZE_REPEATED = ("; repeated size recompiles mean automatic dynamic shapes were off "
                 "(dynamic=False or automatic_dynamic_shapes=False): drop dynamic=False. If "
                 "only a few sizes occur, pad inputs to a fixed set of sizes.")
SIZE_ONCE = ("; one recompile per new dimension is expected (automatic dynamic shapes), more "
             "is not.")
FIXES = {
    "size_loop": "Write the loop with tensor ops over the whole range at once (`torch.arange` "
                 "and `torch.meshgrid` for a grid, a batched op for the body), or move the loop "
                 "out of the compiled function (compute what it builds once per size and pass "
                 "it in), or pad inputs to a few fixed sizes.",
    "size_order": "Do the padding (or whatever compares the lengths) before the compiled "
                  "call and pass one padded tensor with the lengths or a mask "
                  "(`pad_sequence(items, batch_first=True)` outside), or pad every item to "
                  "one fixed length; each ordering is otherwise a graph of its own.",
    "size_branch": "Expected once per outcome of the branch: more compiles than outcomes are "
                   "not. To keep one graph, compute both sides without a Python `if` on the "
                   "size (`torch.where`, or `torch.cond` for whole branches), or pad inputs so "
                   "the expression comes out the same.",
    "subclass_metadata": "Keep what changes out of the subclass's flatten context: hold it "
                         "as a tensor among the inner tensors (`__tensor_flatten__`'s first "
                         "value, e.g. a 0-dim `scale` tensor: `return [\"qdata\", \"scale\"], "
                         "None`), so it is a graph input and not a guarded constant; leave in "
                         "the context only what fixes the layout (a dtype, a block size).",
    "size_range": "Expected once per range: more compiles than ranges are not. To keep one "
                  "graph, do not compare the size in Python where the bound came from (the "
                  "line this points at; `torch.where`, or `torch.cond` for whole branches), or pad "
                  "inputs so they stay in the range; `torch._dynamo.mark_dynamic({tensor}, "
                  "{dim}, min=..., max=...)` states the range up front.",
    "size": "Mark the varying dimension dynamic before the first call, "
            "`torch._dynamo.mark_dynamic({tensor}, {dim})`, or compile with `dynamic=True`",
    "stride": "Make the layout consistent: pass `{tensor}.contiguous()` (or always the same "
              "view) to the compiled function.",
    "dtype": "Call it with one dtype: convert at the call site ({convert}) or keep separate "
             "compiled functions per dtype on purpose.",
    "device": "Move {tensor} to one device before calling the compiled function.",
    "requires_grad": "Keep requires_grad consistent across calls: run inference calls under "
                     "`torch.no_grad()` with the same inputs, or detach() the inputs that "
                     "should not require grad. Where one compiled forward serves several "
                     "instances of a module (blocks compiled one by one, e.g. FSDP2's "
                     "`block.compile()`), the first block gets the batch and the others get "
                     "activations that require grad: one graph each, compiled once, which is "
                     "expected; more recompiles than that are not.",
    "global_state": "Call the compiled function under one grad/autocast mode, or compile "
                    "separate functions for training and for inference (torch.no_grad()).",
    "training": "Switching train()/eval() costs one graph per mode, which is fine; avoid "
                "toggling it inside a loop, or keep one compiled copy per mode (e.g. compile "
                "the model after model.eval() for evaluation).",
    "global": "Don't mutate the global {src} between calls: pass it as an argument (a tensor, "
              "so its value is not baked into the graph) or make it a constant.",
    "value": "Pass {src} as a tensor (`torch.tensor(value)`) instead of a Python "
             "number/constant, or mark it dynamic; each distinct Python value otherwise "
             "compiles a new graph.",
    # probes31a session_history_lists: a list of item ids, where only the padding removed
    # the recompiles (the stacking advice cannot apply to ints; a loop over it unrolls)
    "length": "Pad the list to a fixed length (with a mask for the padding), or pass it as "
              "one tensor made before the call (`torch.tensor(items)` for numbers, "
              "`torch.stack(items)` for tensors), whose length Dynamo can keep dynamic unless "
              "the code loops over it in Python.",
    "identity": "Create the object (module, function, optimizer) once and reuse it; a new "
                "object per call forces a new compile.",
    "replaced": "Set {src} before the first compiled call and keep it (swap what it holds "
                "rather than the attribute itself), or accept one recompile per replacement; "
                "replacing it every call recompiles every call.",
    "type": "Call the function with the same argument types every time.",
    # an item deep in a nested Python argument (a parse tree of ints and tuples: probes38i
    # rvnn_tree_leaf_ids, whose "same types" fix a tree cannot follow)
    "type_nested": "{src} is an item of a nested Python structure passed in (a tree, nested "
                   "lists): Dynamo guards on its shape, the type at each position and often "
                   "its values, so each new structure is a graph of its own. Keep the "
                   "structure out of the compiled inputs: compile the per-node computation "
                   "and walk the structure in eager, or pass it as tensors (ids, parent "
                   "indices) of a fixed layout.",
    "backend": "Compile the function once, with one backend, and reuse the compiled callable; "
               "where a custom backend is built per call, build it once (or wrap it in "
               "`functools.partial` once) so that torch sees the same backend.",
    "none": "Give {src} its final value before the first call (where the code sets it on "
            "first use, set it yourself up front), so that the first compile is the only one.",
    # a parameter's .grad (probes42d multitask_heads_compiled_adamw: heads idle in a step
    # keep grad None after zero_grad(); "set it up front" was undone at every step)
    "none_grad": "{src} is None at some steps and a tensor at others: zero_grad() sets "
                 "gradients to None by default, and a parameter the step's loss did not reach "
                 "(a task head not used this step, a frozen branch) gets none. Call "
                 "`opt.zero_grad(set_to_none=False)` and give every parameter a gradient "
                 "once before the first step (`p.grad = torch.zeros_like(p)`), so that every "
                 ".grad is a tensor at every call.",
    # a field of an input (a batch's `mask`, None when nothing is padded: probes38d
    # collate_optional_mask_recompile, told to set it "before the first call")
    "none_input": "Pass {src} in one form at every call: a field of an input that is None at "
                  "one call and a tensor at another gets a graph for each (both cached, so a "
                  "few switches cost a compile each). Where it switches often, always pass a "
                  "tensor (an all-ones mask when nothing is padded, say).",
}
# A size made dynamic (automatic dynamic shapes, dynamic=True, maybe_mark_dynamic) that a line
# specialised back to a constant: each new size recompiles, and mark_dynamic would only turn
# that into a ConstraintViolationError at the same line.
SPECIALIZED_REASON = "; line {lineno} specialises it to a constant"
SPECIALIZED_ROOT_REASON = ("; line {lineno} specialises {src}, which changed with it, to a "
                           "constant first")
SPECIALIZED_EXPLANATION = ("{src} was dynamic, but `{line}` (line {lineno}) specialised it to "
                           "the constant {value} ({why}), so every new size compiles a new "
                           "graph.")
SPECIALIZED_FIX = ("Rewrite line {lineno} so it does not need the concrete size: a Python "
                   "loop over `range(<size>)`, an `if` on an exact size, or a size converted "
                   "to a Python int for a non-symbolic op makes it a constant; vectorise the "
                   "loop or branch with torch ops (`torch.where`), or pad inputs to a few "
                   "fixed sizes. `torch._dynamo.mark_dynamic` does not help here: it raises "
                   "ConstraintViolationError at this line (use `maybe_mark_dynamic` to allow "
                   "the specialisation).")
# A Python number made symbolic after its second value (automatic dynamic) that a line then
# needed as a concrete number (an op that takes an int: matrix_power's n, range(n), a repeat
# count): each new value recompiles; a tensor stands for it only where the op takes one too
# (probes36f quantile_clip_anneal: `torch.quantile(x, clip_q)` takes q as a tensor).
SPECIALIZED_NUMBER_EXPLANATION = (
    "{src} was made symbolic after its second value (automatic dynamic), but `{line}` (line "
    "{lineno}) needs it as a concrete number and specialised it back to {value} ({why}), so "
    "every new value compiles a new graph. A tensor can stand for it where the op takes one "
    "too (`torch.quantile`'s q, `clamp`'s bounds, arithmetic), not where it takes only a "
    "Python number (a repeat count, `range`).")
SPECIALIZED_NUMBER_FIX = (
    "Keep line {lineno}'s use of {src} out of the compiled function (compute what depends on "
    "the number before the call and pass the result in), or write it with tensor ops that "
    "take the number as a tensor: pass `torch.tensor(value)` and use a closed form or a "
    "vectorised op where line {lineno} loops over `range(...)` or calls an op that takes a "
    "Python int.")
# probes35e gru_unroll_batch_maxlen: `for t in range(n_steps)` over a GRU cell, n_steps the
# batch's longest length; passing a sliced input and looping over its width still recompiled
SPECIALIZED_LOOP_FIX = (
    "Line {lineno} loops over `range({src})`, and Dynamo unrolls a Python loop into the graph, "
    "one copy of the body per step, so each count is a graph of its own. Loop a fixed number "
    "of times (the padded width, the largest count, masking the steps past each sequence's "
    "end with `torch.where`), or keep the loop in eager and compile what its body calls "
    "(`torch.compile` on that submodule or function); where the body is arithmetic on the "
    "counter, one vectorised op over `torch.arange` with the bounds passed as tensors "
    "(`torch.tensor(value)`) replaces the loop.")
# The same, where no line of the program did it: torch's own code needed the value (probes29c
# audio_unet_varlen: Inductor's convolution_backward lowering added `Eq(s86, 3616)`), so
# automatic dynamic shapes were on and mark_dynamic fails alike.
TORCH_SPECIALIZED_REASON = "; torch's own code specialises it to a constant, no line of yours"
TORCH_SPECIALIZED_EXPLANATION = (
    "{src} was made dynamic (automatic dynamic shapes were on), then specialised back to the "
    "constant {value} ({why}) by torch's own code while compiling, with no line of the "
    "program involved (an Inductor lowering that needs the concrete size, a convolution's "
    "backward say), so every new size compiles a new graph.")
TORCH_SPECIALIZED_FIX = (
    "Pad or bucket the inputs to a few sizes (each compiles once, then is reused): "
    "`torch._dynamo.mark_dynamic` does not help, it raises ConstraintViolationError on the "
    "same specialisation.")
# A guard that failed this many times, each time with a new value, recurs every step.
RECURRING = 3
AUTOMATIC_DYNAMIC = ("Nothing to do: torch compiles once more for a new size and marks the "
                     "dimension dynamic from then on (automatic dynamic shapes). To save that one "
                     "compile, mark it dynamic before the first call: "
                     "`torch._dynamo.mark_dynamic({tensor}, {dim})`.")
AUTOMATIC_DYNAMIC_SCALAR = (
    "Nothing to do: torch compiles once more for a new value of {src} and makes it symbolic "
    "from then on (automatic dynamic), so later values reuse that graph. To save that one "
    "compile, pass it as a tensor (`torch.tensor(value)`).")
OPTIONAL_ARGUMENT = ("Nothing to do: a call with {src}=None and one with a value each get a "
                     "graph of their own (Dynamo guards on whether an argument is None); both "
                     "stay cached, so switching between them costs nothing more.")
MODE_SWITCH = ("Nothing to do: Dynamo guards on the grad mode, autocast and a module's "
               "training flag, so the call in the other mode (an evaluation pass under "
               "`torch.no_grad()` after `model.eval()`) compiles one graph of its own, once; "
               "both stay cached, and switching back costs nothing more. Each combination of "
               "modes (grad mode, autocast, train/eval) gets its own graph, compiled once; "
               "only the recompile limit would make one a problem.")
# probes30d ema_teacher_ok: a frozen EMA teacher and its student share one compiled forward
REQUIRES_GRAD_CHANGE = (
    "Nothing to do: Dynamo guards on each tensor's `requires_grad` (an input, a parameter), "
    "so a call with it changed once (an input that now requires grad, a frozen copy such as "
    "an EMA teacher, a layer unfrozen for fine-tuning) compiles one more graph, and both stay "
    "cached; where one compiled forward serves blocks compiled one by one (FSDP2's "
    "`block.compile()`), the first block gets the batch and the others activations that "
    "require grad, one graph each, which is expected. Flipping `requires_grad` again and "
    "again recompiles each time: keep the flags fixed (leave frozen parameters out of the "
    "optimizer, `optimizer.add_param_group` when a block is unfrozen).")
BOOL_FLAG = ("Nothing to do: {src} is a Python bool that picks a branch, and Dynamo compiles "
             "one graph per value (a bool is never made symbolic); both stay cached, so "
             "switching between them costs nothing more. Passing it as a tensor would turn the "
             "`if` into a data-dependent graph break.")
STRING_VALUE = ("Nothing to do: {src} is a Python string, and Dynamo compiles one graph per "
                "value (a string is never made symbolic, and no tensor can stand for it); each "
                "stays cached and is reused when the value comes back. Only a string that "
                "changes on every call (a step's name, a formatted number) would be a problem.")


def quoted(*values: object) -> bool:
    """Whether every value is a Python string as a guard prints it (`'h'`)."""
    return all(isinstance(v, str) and len(v) >= 2 and v[0] == v[-1] and v[0] in "'\""
               for v in values)


KEYWORD_SETS = ("Nothing to do: the function is called with one set of keyword arguments at "
                "one line and another set at another (a prefill call and a decode step): each "
                "set is a graph of its own, compiled once and kept. More recompiles than call "
                "sites would not be expected.")
SPECIALISED_01_EXPLANATION = (
    "The function was compiled with dynamic=True, yet the first call's size {value} was "
    "specialised: torch always specialises sizes 0 and 1 (0/1 specialisation), so the next "
    "size recompiled.")
SPECIALISED_01_FIX = (
    "Call it first with a size of 2 or more, or keep the dimension from being specialised: "
    "`torch._dynamo.decorators.mark_unbacked({tensor}, {dim})` before the first call (or "
    "`torch.fx.experimental._config.backed_size_oblivious = True`).")
# Sizes 0 and 1 get graphs of their own whatever else happens (0/1 specialisation): a size
# that took one of them recompiled once for it and once more for the next size, by design.
# Recompiles torch makes on purpose, per guard category: information, not a problem, when it
# happened once and the facts named hold (issue 29 §2). `size`: automatic dynamic shapes marks
# the dimension dynamic on the first size change; `value`: likewise a Python int/float
# argument, seen in the store as the next compile no longer guarding `n == V`; `none`: an
# optional argument None once and a value once gets a graph per pattern, both cached. The same
# recompile repeated (dynamic=False, sizes 0/1, a learning rate changing every step) is not.
ON_PURPOSE: dict[str, dict[str, Any]] = {
    "size": {"needs": ("automatic_dynamic", "not_requested"), "fix": AUTOMATIC_DYNAMIC},
    # (an argument or an attribute: the optimizer's `param_groups[0]['lr']` a scheduler
    # changes once is made dynamic the same way, probes28b opt_step_cosine_lr)
    "value": {"needs": ("automatic_dynamic", "not_requested", "made_dynamic"),
              "fix": AUTOMATIC_DYNAMIC_SCALAR},
    "none": {"needs": ("argument",), "fix": OPTIONAL_ARGUMENT},
    # `length` of the **kwargs dict: two call sites passing two keyword sets (probes25
    # hf_llama_decode_dynamic_false: a prefill and a decode call)
    "length": {"needs": ("keywords", "another_call"), "fix": KEYWORD_SETS},
    # a bool that picks a branch, an argument or an attribute: one graph per value (probes26's
    # keyword-only `residual` flag, whose fix said "pass it as a tensor"; probes32f
    # lora_adapter_toggle_ok's `self.q.enabled`, a problem whose tensor fix made 6 breaks)
    "flag": {"needs": (), "fix": BOOL_FLAG},
    # a string argument (a prime text, a mode name) once with another value (probes35f
    # charlm_generate_str_index: "pass s as a tensor" for a str, a problem on a correct program)
    "string": {"needs": (), "fix": STRING_VALUE},
    # one graph per grad/autocast mode and train/eval: an evaluation pass in a training loop
    # (probes27 train_amp_bf16_ok: a problem on a correct program)
    "global_state": {"needs": (), "fix": MODE_SWITCH},
    "training": {"needs": (), "fix": MODE_SWITCH},
    "requires_grad": {"needs": (), "fix": REQUIRES_GRAD_CHANGE},
}
# Categories whose recompiles are each a new combination of modes, all kept: by design at any
# count below the recompile limit.
MODE_CATEGORIES = ("global_state", "training")


# A dynamic size whose range guard failed on a size of 0 or 1 (the recompiled entry's static
# size): torch specialises those even in a dynamic graph (0/1 specialisation).
RANGE_01_REASON = ("size {src} became {value}, below its dynamic graph's range {span}: torch "
                   "specialises sizes 0 and 1, so it compiled a graph of its own")
RANGE_01_EXPLANATION = (
    "The function was compiled with this size dynamic, for sizes from 2 up: torch "
    "specialises sizes 0 and 1 even for a dynamic "
    "dimension (mark_dynamic, dynamic=True): a batch of one, such as the last, uneven batch of "
    "a split or a DataLoader, does not fit the dynamic graph and compiles a graph of its own.")
# probes29b bf16_batch_serve_ok: mark_unbacked in place of maybe_mark_dynamic made BatchNorm
# break ("Could not guard on data-dependent expression Eq(4096*u0, 0)") and recompile twice,
# and backed_size_oblivious left the range guard; padding is what works everywhere.
RANGE_01_FIX = (
    "Keep the size at 2 or more (`drop_last=True`, or pad the last batch and drop the padded "
    "rows from the output): the size-1 graph is compiled once and reused, so a rare batch of "
    "one costs that one compile. `torch._dynamo.decorators.mark_unbacked({tensor}, {dim})` in "
    "place of mark_dynamic lets the dynamic graph take 0 and 1 too, but code that checks the "
    "size (BatchNorm's batch check, a `view` on it) then breaks on the unbacked size: try it "
    "only where nothing does.")
# A guard compdiag has no category for: torch's own words, and no other category's fix
# (dynamic shapes help a size or stride guard only).
FIX_OTHER = ("Keep what this guard checks the same between calls (torch's words for it are "
             "in the reason).")
# Categories whose source alone does not say what the guard checks (`wq`): the recompile
# limit's headline says it, in REASONS' words.
SAID_IN_LIMIT = ("subclass_metadata", "size_range")
# Categories whose new value the recompiled entry's own guards hold (guard_values).
VALUE_GUARDS = ("value", "global", "training", "length", "size_range")
# A name the recompile reason writes bare (`kind`, `len(xs)`, `fn._modules['1'].training`):
# not after '.', a quote, ']' or another name character, and not a call (`len(`).
_BARE_LOCAL = re.compile(r"(?<![\w'\].])([A-Za-z_]\w*)(?![\w(])")


def tree_spelling(source: str) -> str:
    """The guarded expression as the guard tree writes it: the recompile reason names a
    frame's locals bare, the tree as L['name']."""
    return _BARE_LOCAL.sub(lambda m: m.group(1) if m.group(1) in ("L", "G")
                           else f"L['{m.group(1)}']", source)


def _clipped(text: str, width: int) -> str:
    """`text` cut at a word boundary within `width`, marked as cut (never mid-word: probes25's
    "(_prims_common/__init__.py:511 i")."""
    if len(text) <= width:
        return text
    cut = text[:width].rsplit(" ", 1)[0].rstrip()
    return f"{cut} …"


def recompile_explanation(category: str, source: str, fn: str | None, count: int,
                          guard: str) -> str:
    where = f"{fn}()" if fn else "the function"
    template = EXPLANATIONS.get(category)
    what = template.format(src=source, where=where) if template else \
        f"A guard failed: {_clipped(guard, 200)}"
    if count > 1:
        what += f" It happened {count} times."
    return what


def tensor_and_dim(source: str) -> tuple[str, str]:
    """`L['x'].size()[0]` -> ('x', '0'), `xs[0].size()[1]` -> ('xs[0]', '1'),
    `L['self']._modules['fc']._parameters['weight'].size()[1]` -> ('self.fc.weight', '1'): the
    names a fix spells (the tensor, its whole path, not its size; probes25: `mark_dynamic(self,
    1)` and `mark_dynamic(kwargs, 2)` named the root only)."""
    dim = re.search(r"\[(\d+)\]$", source)
    tensor = re.sub(r"\.(?:size|stride)\(\)\[\d+\]$", "", source)
    return in_user_spelling(tensor), dim.group(1) if dim else "0"


# torch's own advice in a failed guard ("Guard failed on a parameter, consider using
# torch._dynamo.config.force_parameter_static_shapes = False"): the fix it names.
_TORCH_HINT = re.compile(r"((?:[^.;]*?)consider using (`?)torch\.[\w.]+(?: = \w+)?\2)")


# torch writes its hint after any failed guard on a parameter, whatever failed; a setting about
# shapes answers only a guard on a size or a stride (a parameter whose requires_grad changed
# keeps recompiling with force_parameter_static_shapes off).
_SHAPE_HINT = re.compile(r"shape|dynamic", re.I)
_SHAPE_CATEGORIES = ("size", "stride")


def torch_hint(guard_text: str | None, category: str | None = None) -> str | None:
    """The advice torch wrote into the failed guard, as a sentence, or None: None too where
    the advice is about shapes and the guard that failed is not (`category`)."""
    m = _TORCH_HINT.search(guard_text or "")
    if m is None:
        return None
    if category is not None and category not in _SHAPE_CATEGORIES \
            and _SHAPE_HINT.search(m.group(1)):
        return None
    if category == "stride" and "static_shapes" in m.group(1):  # sizes', not a layout's
        return None
    return m.group(1).strip().rstrip(".") + "."


# A module's parameter (`fn[0][4][0].bias`, `self.net[0].weight`, `_parameters['bias']`):
# probes30d gradual_unfreeze unfroze one block per epoch, and the fix spoke of inference
# inputs; leaving the flags alone and adding the block to the optimizer gave 0 recompiles.
_PARAMETER = re.compile(r"_parameters\[|\.(?:weight|bias)\b")
RESUMED_VALUE_FIX = ("The guarded value is one the code after a graph break was handed (Dynamo "
                     "names it `___stack0` in the resumed function), not a name of yours: the "
                     "recompile follows from the break, so remove the break (its diagnosis) and "
                     "this recompile goes with it.")


# torch's names in a dtype guard ("expected Long, actual Bool") -> the dtype to convert to
TORCH_DTYPES = {"Float": "torch.float32", "Double": "torch.float64", "Half": "torch.float16",
                "BFloat16": "torch.bfloat16", "Long": "torch.int64", "Int": "torch.int32",
                "Short": "torch.int16", "Char": "torch.int8", "Byte": "torch.uint8",
                "Bool": "torch.bool", "ComplexFloat": "torch.complex64",
                "ComplexDouble": "torch.complex128", "ComplexHalf": "torch.complex32",
                "UInt16": "torch.uint16", "UInt32": "torch.uint32", "UInt64": "torch.uint64",
                "Float8_e4m3fn": "torch.float8_e4m3fn", "Float8_e5m2": "torch.float8_e5m2"}


# An iterator the compiled code advances (`next(counter)` of an itertools.count, a generator
# or tuple iterator of a schedule): Dynamo guards on its position, so every call recompiles;
# a tensor made inside from its value still does (probes36e count_noise_level,
# schedule_generator_fullgraph: "wrap it in a tensor" and "pass a list" kept recompiling)
ITERATOR_FIX = ("Advance the iterator outside the compiled function and pass its value in as a "
                "tensor argument (`step(x, torch.tensor(next(it)))`): Dynamo guards on where "
                "an iterator it advances stands ({src}), so each call compiles again, whatever "
                "is done with the value inside.")


def recompile_fix(category: str, source: str, *, count: int, limit: bool,
                  fn: str | None, recurring_text: str | None = None,
                  guard_text: str | None = None, tied: str | None = None,
                  before: Any = None) -> str:
    if "___stack" in source:  # a value the code after a graph break was handed (perf showed
        return RESUMED_VALUE_FIX  # `mark_dynamic(L['___stack0'], 0)`: probes35e)
    fix = _change(category, source, count, recurring_text, guard_text, tied, before)
    return LIMIT_FIX.format(fn=fn or "The function", fix=fix) if limit else fix


def _change(category: str, source: str, count: int, recurring_text: str | None,
            guard_text: str | None, tied: str | None, before: Any) -> str:
    """recompile_fix's change to the program, before the recompile limit's words."""
    if "___normalize_count_iter" in source or "___tuple_iterator" in source:
        return ITERATOR_FIX.format(src=source)  # an iterator the compiled code advances
    tensor, dim = tensor_and_dim(source)
    hint = torch_hint(guard_text, category)
    if hint is not None:  # torch named the fix for this guard itself (e.g. a parameter)
        return f"torch says: {hint[0].lower()}{hint[1:]}"
    if recurring_text is not None and category in ("value", "global"):
        return recurring_fix(source, recurring_text)
    template = FIXES.get(category)
    if category == "requires_grad" and _PARAMETER.search(source or ""):
        template = PARAMETER_REQUIRES_GRAD_FIX
    if category == "stride" and _PARAMETER.search(source or ""):
        template = PARAMETER_STRIDE_FIX
    if category == "none" and input_field(source):
        template = FIXES["none_input"]
    if category == "none" and (source or "").endswith(".grad"):
        template = FIXES["none_grad"]
    if category == "type" and nested_input(source):
        template = FIXES["type_nested"]
    # the dtype it was compiled for (probes36b bert_eval_bool_mask: a Long mask, then a Bool
    # one, was told to convert to float32, which recompiled again)
    dtype = TORCH_DTYPES.get(str(before))
    convert = f"`{tensor}.to({dtype})`, the dtype it was compiled for" if dtype else \
        f"`{tensor}.to(...)` with the dtype of its first call"
    fix = template.format(src=source, tensor=tensor, dim=dim, convert=convert) if template \
        else FIX_OTHER
    if category == "size" and tied:  # other inputs of that size (analyses/tied_sizes.py)
        fix = tied
    if category == "size":
        fix += SIZE_REPEATED if count > 1 else SIZE_ONCE
    return fix
