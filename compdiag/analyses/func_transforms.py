"""A torch.func transform's own tensors escaping it in a compiled function (issue 29 §1: the
line the failure is about). Under grad/vjp/jvp/vmap, torch wraps tensors in functorch's
TensorWrapper or BatchedTensor for one transform level; when something the transform made
(vjp's returned `vjp_fn`, a closure, a tensor kept past the transform) leaves the compiled
function, AOTAutograd meets a wrapper whose level is gone and fails ("Cannot access storage
of TensorWrapper", pytorch/pytorch#172026). torch's traceback points only at the compiled call;
the cause is the transform's call inside the compiled function, read from the program's stored
source."""

from __future__ import annotations

import ast
import re
from typing import Any

from compdiag.analyses.compiled_source import compiled_defs
from compdiag.analyses.diagnosis import Diagnosis
from compdiag.formats.compile_id import sort_key

# what torch's words say when a transform's wrapper is met where its level is gone; not a
# wrapper's repr among a node's arguments (`GradTrackingTensor(lvl=4, value=...`: probes30b
# hessian_potential, a torch internal assert under vmap(hessian), read as an escape)
_MET = re.compile(r"(?:TensorWrapper|BatchedTensor|GradTrackingTensor)(?!\(lvl=)|functorch level")
TRANSFORMS = ("vjp", "jvp", "grad", "grad_and_value", "vmap", "jacrev", "jacfwd", "hessian",
              "linearize")
PACKAGES = ("torch.func", "functorch")
# torch.autograd.functional's (jacobian(vectorize=True) runs its backward under vmap): not
# traceable, so a compiled function breaks at the call and runs it in eager, where it
# differentiates the code Dynamo compiled on its own from there (probes33b
# contractive_jacobian_penalty: "Cannot access storage of BatchedTensorImpl" in the compiled
# backward of the encoder, said at the encoder's line with a bisect fix)
AUTOGRAD_FUNCTIONAL = ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp")
EAGER_TRANSFORM_EXPLANATION = (
    "`{call}` cannot be traced (a graph break at its line), so it ran in eager, where it calls "
    "the code it differentiates, and Dynamo compiled that code as a frame of its own; the "
    "transform then differentiated the compiled graph (with create_graph=True, and under vmap "
    "with vectorize=True), which a compiled graph's backward does not support: the batched "
    "or wrapped tensors reached its kernels.")
EAGER_TRANSFORM_FIX = (
    "Use the traceable torch.func form inside the compiled function (`torch.func.jacrev(f)(x)` "
    "for `jacobian`, `torch.func.hessian`, `torch.func.vjp`/`jvp`), or keep the function "
    "`{call}` differentiates uncompiled for that call (a `torch.compiler.disable` helper "
    "around it).")
# forward-mode AD (jvp, and jacfwd and hessian, which use it) gives a zero tangent as an
# efficient ZeroTensor; a compiled backward that writes a kernel's output into one fails, which
# eager never does (pytorch#177261, probes32g pinn_hessian_laplacian: said at the
# differentiated function's line with a bisect fix)
_ZERO = re.compile(r"ZeroTensors are immutable")
FORWARD = ("jvp", "jacfwd", "hessian", "linearize")
ZERO_SAID = "a zero tangent of {call}'s forward-mode AD, which the compiled backward writes to"
ZERO_EXPLANATION = (
    "`{call}` differentiates in forward mode (jvp), where a tangent that is zero is an "
    "immutable ZeroTensor; Inductor's backward for the graph writes a kernel's result into one "
    "(an `out=` buffer), which eager never does, so the compiled backward fails where eager "
    "runs.")
ZERO_FIX = (
    "Differentiate in reverse mode only inside the compiled function (`jacrev(jacrev(f))` for "
    "`hessian`, `jacrev` for `jacfwd`, a `vjp` for the `jvp`), or keep `{call}` out of the "
    "compiled code (a `torch.compiler.disable` helper around it).")
FIX = ("Keep what the transform makes inside the compiled function: apply `{call}`'s result "
       "(call the returned function, use the tensors) there and return plain tensors, or "
       "compile the function the transform wraps instead of the transform itself.")


def escaped_transform(ctx: Any, texts: str) -> dict[str, Any] | None:
    """{filename, lineno, line, call} of the torch.func transform a compiled function calls,
    when torch's words (`texts`) say a transform's wrapper was met outside its level; else
    None."""
    zero = not _MET.search(texts) and bool(_ZERO.search(texts))
    if not zero and not _MET.search(texts):
        return None
    for fn, tree, path in compiled_defs(ctx):
        imported = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                    and (n.module or "") in PACKAGES for a in n.names}
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            last = name.rsplit(".", 1)[-1]
            if last in (FORWARD if zero else TRANSFORMS) and (
                    name.rsplit(".", 1)[0] in PACKAGES or (name == last and last in imported)):
                found = {"filename": path, "lineno": node.lineno, "call": name,
                         "line": ast.unparse(node)}
                return {**found, "said": ZERO_SAID.format(call=name),
                        "explanation": ZERO_EXPLANATION.format(call=name),
                        "fix": ZERO_FIX.format(call=name)} if zero else found
            if zero:
                continue
            if last in AUTOGRAD_FUNCTIONAL and name.rsplit(".", 1)[0].endswith(
                    "autograd.functional"):
                return {"filename": path, "lineno": node.lineno, "call": name,
                        "line": ast.unparse(node), "in_eager": True,
                        "explanation": EAGER_TRANSFORM_EXPLANATION.format(call=name),
                        "fix": EAGER_TRANSFORM_FIX.format(call=name)}
    return None


def transform_sent_to_eager(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """effect: Dynamo refused a function a torch.func transform called in eager ("Unsupported
    functorch tracing attempt"); cause: an earlier break inside that function (probes33b
    robust_regression_grad_step: `if loss > cap:` inside `grad(batch_loss)`, #2 under it)."""
    if "functorch tracing attempt" not in (effect.details.gb_type or "") or \
            cause.severity != "problem" or not cause.compile_id or not effect.compile_id:
        return False
    return ctx.in_function(effect.compile_id, cause.user_frame) and \
        sort_key(cause.compile_id) < sort_key(effect.compile_id)
