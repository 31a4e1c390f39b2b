"""The program kind's words for an exception of the program's own: what `--check-accuracy`
said about a check of the user's that failed, known errors of the program's that
torch.compile set up, and the fix for an error outside compiled code. Kept apart from
analyses/diagnoses/program.py, which picks them."""

from __future__ import annotations

import re
from typing import Callable

from compdiag.analyses.rules import Words, every

CHECK_EQUAL = ("`run --check-accuracy` compared every compiled graph with eager and found them "
               "equal within tolerance, so the difference this check sees is rounding that "
               "torch.compile is allowed (reordered reductions, fused ops): compare with the "
               "tolerances of `torch.testing.assert_close` (or against an fp64 reference, as "
               "`torch._dynamo.utils.same` does) instead of exact equality or tighter bounds.")
CHECK_MISMATCH = ("`run --check-accuracy` found a compiled graph that differs from eager: see "
                  "the accuracy diagnosis.")
CHECK_UNMEASURED = ("Run it again with {rerun} to see whether any compiled graph differs "
                    "from eager.")
# Known errors of the program's own that torch.compile set up (every word in the message).
PROGRAM_FIXES: tuple[tuple[Words, str], ...] = (
    (every("_orig_mod."),
     "torch.compile wraps a module in an OptimizedModule whose state_dict keys start with "
     "`_orig_mod.` (pytorch/pytorch#101107): save `compiled._orig_mod.state_dict()` (the "
     "original module's), or strip the prefix before `load_state_dict`."),
    # probes47c ckpt_full_model_compiled_forward: `model.forward = torch.compile(
    # model.forward)`, then `torch.save({"model": model, ...})` (the line's words count too)
    (every("pickl", "not the same object as", "save("),
     "The object saved holds torch.compile's wrapper of a function (an attribute set to what "
     "`torch.compile(...)` returned, such as `model.forward = torch.compile(model.forward)`), "
     "and pickle stores a function by its name, which finds the plain function, not the "
     "wrapper. Save the weights, `model.state_dict()`, as checkpoints usually do; or compile "
     "with `model.compile()`, which compiles the module in place and keeps it picklable."),
    # probes41d pool_map_compiled_scorer (pytorch#101107's cousin): `pool.map(torch.compile(
    # score), ...)` ended in "Can't pickle <function score>: it's not the same object as
    # __main__.score", said as the program's own error with a force_eager check that fails too
    (every("pickl", "not the same object as"),
     "The object pickled is torch.compile's wrapper of the function: it carries the "
     "function's name (functools.wraps), so pickle looks the name up in its module, finds the "
     "plain function there and refuses the wrapper. Send the plain function to the worker "
     "processes (`pool.map(score, ...)`) and compile inside each worker (at the top of the "
     "function the pool runs, or in its initializer), or use threads, which share the "
     "compiled function without pickling."),
)
OUTSIDE = ("The traceback does not pass through compiled code: this is the program's own "
           "error, not torch.compile's. Check whether the script raises it without "
           "torch.compile (`torch.compiler.set_stance(\"force_eager\")`).")


# torch's message naming torch.compile's own machinery: raised by a check torch.compile set
# up, though no compiled frame is on the traceback (probes48a ddp_compiled_autograd_reducer:
# "Compiled autograd is not compatible with C++ DDP Reducer, please use
# torch._dynamo.config.optimize_ddp=...", said as the program's own error)
_NAMES_COMPILE = re.compile(r"torch\._dynamo\.|torch\._inductor\.|torch\.compile\b|"
                            r"\b[Cc]ompiled autograd\b")
_INSTEAD = re.compile(r"\b(Use [^\n'\"]{5,300}? instead)\b")
_PLEASE = re.compile(r"(?:^|[,;.]\s*)[Pp]lease ((?:use|set|call|pass|enable|disable)\b"
                     r"[^\n]{5,300}?)\.?\s*$", re.M)
COMPILE_REFUSAL = ("The exception was raised by torch in a check torch.compile makes: its "
                   "message names torch.compile's own machinery, though no compiled frame is "
                   "on the traceback (the check runs where torch.compile hooked in: compiled "
                   "autograd's backward, a compiled module's hooks).")
COMPILE_FIX = "Do what torch's message says, before the line that set it up: {advice}."


def compile_advice(message: str | None) -> str | None:
    """torch's own advice in a message that names torch.compile's machinery ("please use
    X"), None when the message names none or gives none."""
    text = (message or "")[:4000]
    if not _NAMES_COMPILE.search(text):
        return None
    m = _PLEASE.search(text) or _INSTEAD.search(text)
    return m.group(1) if m else None


def or_refused(otherwise: str) -> Callable[[str, str, str, str], str]:
    """A graph-break fix (fixes.RULES) that, for an exception torch raises on purpose under
    torch.compile ("X is not supported under torch.compile. Use Y instead.", probes48a
    clip_loss_gather_with_grad), is torch's advice; `otherwise` for any other."""
    def fix(gb_type: str, explanation: str, debug_ctx: str, line: str) -> str:
        advice = compile_advice(debug_ctx)
        if advice is None:
            return otherwise
        grads = (" (where gradients must flow through the collective, its `_autograd` "
                 "variant: `all_gather_tensor_autograd`, `reduce_scatter_tensor_autograd`)"
                 if "_functional_collectives" in advice else "")
        return (f"torch refuses this call under torch.compile on purpose; its message says "
                f"what to do instead: {advice[0].upper() + advice[1:]}{grads}.")
    return fix
