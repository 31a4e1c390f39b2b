"""The words of the whole-function check's verdicts (capture/function_accuracy.py): the
function run whole in eager against its compiled result, which finds what Dynamo traced wrong
and what a graph baked in that changed later; the accuracy kind (analyses/diagnoses/
accuracy.py) merges them into its verdict tables. Placeholders: {fn} the function, {under} the
torch.func transforms it ran under, {out} the output, {why} the comparison's words,
{eager_error} eager's exception, {call} the call that differed, {path} the library code that
asks whether it is compiled (capture/module_accuracy.py), {minify} minify's command, {attr}
the attribute a stale_number verdict names, {eager_value}/{compiled_value} its two values."""

from __future__ import annotations

from typing import Any

from compdiag.analyses.runtime_fixes import known_error

# what `changed_after_compile` supposes, dropped where the check found another cause (inputs
# that alias one storage: analyses/baked_values.aliased_input)
CONSTANT_CLAUSE = (": a value the graph took as a constant when it was compiled has changed "
                   "since")
FUNCTION_REASONS = {
    "modified_before_backward": "the program wrote {attr} in place after the compiled forward "
                                "and before its backward: eager's backward raises "
                                "{eager_error}, and the compiled backward computed {out} "
                                "from the new values",
    "traced_accepts": "compiled {fn}(){under} returned a value ({out}) where {fn}() in eager "
                      "raises {eager_error}; what Dynamo traced skips a check the code makes",
    "traced_wrong": "compiled {fn}(){under} returns another {out} than {fn}() in eager ({why}), "
                    "while each graph it compiled matches eager: what Dynamo traced differs from "
                    "the code",
    "changed_after_compile": "compiled {fn}() gives another {out} than {fn}() in eager on "
                             "call {call} ({why}), though call 1 matched and nothing "
                             "recompiled" + CONSTANT_CLAUSE,
    "compiled_path": "compiled {fn}() returns another {out} than {fn}() in eager ({why}): "
                     "{path}, and takes another path when it is",
    "stale_number": "compiled {fn}() leaves {out} at {compiled_value} where {fn}() in eager "
                    "leaves {eager_value}: the Python number it writes into the object is "
                    "another than the code computes",
    "traced_other_path": "compiled {fn}(){under} computes line {unrun_line} (`{unrun_code}`), "
                         "which {fn}() in eager never runs on the same arguments, and returns "
                         "another {out} ({why}): Dynamo traced another path through the code "
                         "than Python takes",
    "lost_side_effect": "compiled {fn}() leaves {out} as {compiled_value} where {fn}() in "
                        "eager leaves {eager_value}: a Python side effect of the code was "
                        "not carried out as written",
}
FUNCTION_REASONS["lost_generator_return"] = (
    "compiled {fn}() returns a generator whose return value is lost: {fn}() in eager returns "
    "one that ends returning {eager_value} (StopIteration.value), compiled {fn}() returns a "
    "{returned_as} over its {items} items that ends returning None")
FUNCTION_EXPLANATIONS = {
    "modified_before_backward": (
        "Autograd checks at backward that every tensor the forward saved for it is unchanged "
        "(its version counter), and eager raises when the program wrote one in place in "
        "between. The compiled backward restores its saved tensors without that check "
        "(pytorch/pytorch#197887), so it silently computed these gradients from the values "
        "written after the forward: a program eager refuses to run"),
    "traced_accepts": "The function run whole in eager, from the same arguments and random "
                      "state, raises at this line, and the compiled function returned a value "
                      "instead: the graphs Dynamo traced do not make the check eager makes "
                      "here, so the compiled result is of a program eager refuses to run",
    "traced_wrong": "The function run whole in eager and compiled, from the same arguments and "
                    "random state, gave different results, while every graph agreed with its "
                    "own eager replay: the graphs do not do what the Python code does (a "
                    "silent bug of torch.compile's tracing: a custom autograd rule dropped, an "
                    "alias or in-place resize lost across a graph break)",
    "changed_after_compile": "The function run whole in eager and compiled, from the same "
                             "arguments and random state, agreed on its first call and differs "
                             "on call {call}, which ran only graphs the first call ran: what "
                             "they baked in when compiled changed afterwards, and no guard "
                             "compares it (a function marked torch.compiler."
                             "assume_constant_result whose result changed, a value read under "
                             "a skipped guard, a setting read only while compiling)",
    "compiled_path": "The model run whole in eager and compiled, from the same arguments, "
                     "buffers and random state, gave different results while every graph "
                     "agreed with its own eager replay: library code in the model computes "
                     "another way under torch.compile on purpose (a fast path eager takes and "
                     "compiled code skips), and the two ways agree only on what that code "
                     "defines; the output that differs depends on values it leaves "
                     "unspecified (for nn.TransformerEncoder with a padding mask: the "
                     "positions of padding tokens, zero in eager's nested-tensor path; for "
                     "nn.MultiheadAttention, a query whose keys are all masked: NaN in "
                     "eager's fast path, zero in the compiled one)",
    "stale_number": "The function run whole in eager (on a deep copy of the object it "
                    "updates) and compiled, from the same arguments and random state, left "
                    "another value in the object's Python number attribute. A float or int "
                    "attribute the compiled code reads is a constant of the graph, guarded "
                    "or specialised when it was compiled, so the value the compiled code "
                    "writes back can be one fixed at compile time rather than computed from "
                    "the attribute's current value; the results that depend on it drift "
                    "from eager's from then on",
}
FUNCTION_EXPLANATIONS["traced_other_path"] = (
    "The call ran compiled in the program and, in a forked copy of the process taken just "
    "before it, in eager on the same objects, with every user line it ran recorded. The "
    "compiled graph holds the ops of line {unrun_line}, which Python never reached: a test "
    "above it that chooses the path (a try/except, getattr or hasattr, isinstance, an identity or "
    "type comparison) came out one way in Python and the other while Dynamo traced it "
    "(pytorch/pytorch#198197: `getattr` of a missing attribute on a builtin type raised in "
    "eager and not while tracing)")
FUNCTION_EXPLANATIONS["lost_side_effect"] = (
    "The call ran compiled in the program and in eager from the same state (in a forked "
    "copy of the process, or on copies of its arguments); afterwards the Python state the "
    "code changes (a container it appends to, an attribute or enclosing variable it sets, "
    "what it prints) differs. Dynamo runs the tensor work as a graph and carries out the "
    "Python side effects it traced afterwards; this one it dropped or did otherwise, with no "
    "graph break and no error (a closure list appended to by a method of a class created "
    "inside the compiled code, pytorch/pytorch#197896; a print made reorderable inside an "
    "inlined helper; an identity test on an attribute the code rebinds)")
FUNCTION_EXPLANATIONS["lost_generator_return"] = (
    "A generator that leaves the compiled region (returned, or alive across a graph break) is "
    "run to its end while Dynamo traces the call, and the program gets an iterator over what "
    "it yielded (pytorch/pytorch#198190), while what the generator `return`s, read by "
    "`yield from` or from StopIteration.value, is None, with no error and no graph break; "
    "the items are also all computed at the call, not as the program asks for them")
FUNCTION_FIXES = {
    "changed_after_compile": "Keep the changing value out of the graph's constants: pass it "
                             "in as an argument (a tensor, so a new value needs no recompile), "
                             "take `assume_constant_result` off a function whose result can "
                             "change, or call `torch._dynamo.reset()` after changing it.",
    # the graph's own check against eager's, on the program's inputs (probes41f
    # index_add_ignore_label, int_boxes_inplace_rescale: bisect and a minify that refused
    # when pasted, "the error is the graph's own")
    "eager_rejects": "Fix the data before this op: eager refuses these inputs (its error says "
                     "what: an index of -1 or past the size, a result dtype it cannot cast "
                     "to), and the compiled code does not check them, so its result there is "
                     "undefined; drop or mask such entries, or cast explicitly, before the op. "
                     "That the compiled code skips eager's check is torch's to fix: report it "
                     "with the answer of {bisect} (compdiag's minifier cannot shrink it: eager "
                     "fails on the same inputs).",
    "modified_before_backward": "Write {attr} after the backward (after `loss.backward()` and "
                                "the optimizer step), or give the forward a copy (`.clone()`) "
                                "or a second buffer: eager raises on this program as it is.",
    "traced_accepts": "Change this line so eager accepts it (eager's error says what it "
                      "refuses): no backend setting helps, the check is missing from the "
                      "traced graph itself. Report it to PyTorch with the function; `{minify}` "
                      "cannot shrink it (each graph alone is right).",
    "traced_wrong": "No backend setting helps: the traced graph itself is wrong. Report it to "
                    "PyTorch with the function (`{minify}` cannot shrink it: each graph alone "
                    "is right); until fixed, run the function uncompiled "
                    "(`@torch.compiler.disable`) or change the construct at this line.",
    "compiled_path": "Use only what both paths define: leave out the values that library "
                     "code leaves unspecified before reducing over them (mask the padding "
                     "positions out of a mean or sum, drop the rows that are all padding), "
                     "or take the same path in eager "
                     "(`torch.backends.mha.set_fastpath_enabled(False)` for "
                     "nn.MultiheadAttention and nn.TransformerEncoder; for the encoder "
                     "`enable_nested_tensor=False` too); no backend setting changes it.",
    "traced_other_path": "Write the test {test} that chooses this path so Python and the "
                         "trace agree: an explicit "
                         "`isinstance(...)` test instead of catching an AttributeError, or "
                         "the choice passed in as an argument; until then keep the function "
                         "uncompiled (`@torch.compiler.disable`). The trace should take "
                         "Python's path: report it to PyTorch with this function.",
    "lost_side_effect": "Make this side effect outside the compiled code: return what it "
                        "needs from the compiled function and update {out} in the caller, "
                        "or move the code that changes it into a helper marked "
                        "`@torch.compiler.disable` (a graph break there, and the effect "
                        "happens as written). The traced code should do it: report it to "
                        "PyTorch with this function.",
    "lost_generator_return": "Compile the work inside the generator instead of {fn}(), "
                             "which returns the generator: `torch.compile` the model or a "
                             "per-item step it calls, and leave {fn}() uncompiled; or have "
                             "the generator yield its total as a last item.",
    "stale_number": "Keep the number in a tensor (`self.{attr} = torch.tensor(...)`), so the "
                    "graph computes it from its current value instead of baking it in; or "
                    "update it outside the compiled function.",
}


def known_fix(eager_error: str | None) -> str:
    """The fix of a known error eager raised on the program's inputs (runtime_fixes: one that
    eager raises too), to lead an eager_rejects fix: probes42c ctr_bce_raw_logits was told to
    "drop or mask such entries" of raw logits fed to binary_cross_entropy."""
    rule = known_error(eager_error)  # eager's own error: the run-time stage's rules
    if rule is not None and rule.eager_fails and rule.names_change:
        return rule.fix + " "
    # else eager's own advice (probes46d attn_pool_expand_bias_inplace: "Please clone() the
    # tensor before performing the operation", told to "drop or mask such entries")
    from compdiag.analyses.failure_fixes import torch_advice

    advice = torch_advice(eager_error)
    return f"Eager's error says what to do: {advice} " if advice else ""


LOST_STATE_WHY = ("the program raised after the compiled call left its Python state "
                  "otherwise than eager: that state is the likely cause")


def after_lost_state(effect: Any, cause: Any, ctx: Any) -> bool:
    """A program's exception outside compiled code after a lost_side_effect verdict (probes44d
    resume_numpy_step_counter: an np.int64 counter left a 0-d array by the compiled update,
    which a dict refused as a key later): the state is the cause, the exception its
    consequence."""
    d = effect.details
    return getattr(cause.details, "verdict", None) == "lost_side_effect" and \
        bool(getattr(d, "exc_type", None)) and not getattr(d, "compiled", True)
