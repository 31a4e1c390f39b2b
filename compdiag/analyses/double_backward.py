"""Differentiating compiled code twice (a gradient penalty, a PINN's u_xx, MAML): AOTAutograd's
compiled backward is not differentiable again. torch says so in words of its own only on
some paths ("does not currently support double backward", probes29c wgan_gradient_penalty,
probes32a r1_penalty_gan); on others the gradient made with `create_graph=True` comes out
with no path back to the inputs, and the next `autograd.grad` raises autograd's own
connectivity error outside compiled code (probes32g burgers_pinn_compiled_mlp: "The
differentiated Tensor at index 0 appears to not have been used in the graph", said as the
program's own error, while the program trains in eager). Both are this one cause, in the
failures and the program kinds alike."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.locate import source_matches
from compdiag.analyses.rules import one_of

DOUBLE = "does not currently support double backward"
CREATE_GRAPH = re.compile(r"\bcreate_graph\s*=\s*True")
# autograd's words when a tensor it is asked to differentiate has no graph back to an input
CONNECTIVITY = one_of("appears to not have been used in the graph",
                      "does not require grad and does not have a grad_fn")
DOUBLE_EXPLANATION = ("Line {lineno} builds a gradient with `create_graph=True` from compiled "
                      "code's output; differentiating it again (backward() through the "
                      "gradient) needs the compiled graph's backward to be differentiable, "
                      "which AOTAutograd's is not.")
# probes32a r1_penalty_gan: the penalty was already outside; the compiled discriminator's own
# forward was what got differentiated twice (its uncompiled `_orig_mod` for that pass worked)
DOUBLE_FIX = ("Keep the double backward out of compiled code: the forward whose output line "
              "{lineno} differentiates with `create_graph=True` must run uncompiled for that "
              "pass. For a `torch.compile(model)`, call the original module there "
              "(`model._orig_mod(x)`: same weights, eager autograd) and keep the compiled one "
              "for the other passes; for a compiled function that computes the penalty "
              "itself, move the penalty out of it.")
CONNECTIVITY_EXPLANATION = (" The gradient came out of the compiled backward with no graph "
                            "back to the inputs, so autograd's next differentiation found no "
                            "path: an error raised outside compiled code, caused by it.")


def gradient_of_compiled(ctx: Any, message: str, raised_at: UserFrame) -> UserFrame | None:
    """The `create_graph=True` line behind autograd's connectivity error raised at RAISED_AT
    (in the same file, the last before it, else its own), in a run that compiled something;
    None otherwise."""
    if not ctx.compiles or not CONNECTIVITY.found_in(message) or not raised_at.filename:
        return None
    # the gradient made first: a line before the raise, else the raising line's own
    here = [f for f in source_matches(ctx, None, CREATE_GRAPH)
            if f.filename == raised_at.filename and (f.lineno or 0) <= (raised_at.lineno or 0)]
    before = [f for f in here if f.lineno != raised_at.lineno]
    return (before or here or [None])[-1]
