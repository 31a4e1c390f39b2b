"""Whether the ops Dynamo failed on run in eager, on the same real inputs.

An op that raised while Dynamo ran it on fake tensors (a shape error in its meta kernel or
decomposition) is either the program's bug, which eager raises too, or torch's, where eager
runs the same call and only the fake/meta path disagrees (probes45g wn_linear_1d_gain:
`torch._weight_norm(v, g, 0)` with a 1-D gain runs in eager; its decomposition broadcast `g`
wrongly, and the fix offered, "a shape/dtype error there is a bug in the code", was wrong).
DynamoPrefix keeps the graph traced up to that op with the frame's real inputs; running it
with torch.fx's Interpreter decides which of the two it is, measured, not guessed.

Only a graph that cannot change the program's state is run: no module call, no in-place or
mutating op, no custom op (its kernel may do anything), on clones of the inputs, with the
random number generators' state restored. Anything else: no verdict."""

from __future__ import annotations

import operator
from typing import Any

import torch
import torch.fx

from compdiag.capture.undeclared_mutation import TORCH_NAMESPACES, is_custom_op
from compdiag.formats.op_schema import named_in_place

_WRITES = (operator.setitem, operator.delitem, setattr, delattr)


def _mutates(n: torch.fx.Node) -> bool:
    target = n.target
    if n.op == "call_module" or named_in_place(n):
        return True
    if n.op != "call_function":
        return False
    if target in _WRITES or is_custom_op(target) or _foreign_op(target):
        return True
    schema = getattr(target, "_schema", None)
    return schema is not None and bool(getattr(schema, "is_mutable", False))


def _foreign_op(target: Any) -> bool:
    """An op of the program's or a library's namespace, as an overload or as its packet
    (`torch.ops.qkern.fake_quant_rows`: probes46d int8_rowquant_composite_op_data_ptr, a
    CompositeImplicitAutograd op whose Python body raised under fake tensors, called
    torch's bug)."""
    name = getattr(target, "_qualified_op_name", None) or \
        getattr(getattr(target, "_schema", None), "name", None)
    return bool(name) and str(name).split("::")[0] not in TORCH_NAMESPACES


def pure(gm: torch.fx.GraphModule) -> bool:
    """No node of `gm` can write to the program's tensors or modules."""
    return not any(_mutates(n) for n in gm.graph.nodes)


def verdict(gm: torch.fx.GraphModule, inputs: list[Any]) -> str | None:
    """"runs" when `gm` runs in eager on clones of `inputs`, "raises: Type: first line"
    when it raises; None when it is not safe to run (`pure`) or could not be run."""
    if not pure(gm):
        return None
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    args = [a.detach().clone().requires_grad_(a.requires_grad)
            if isinstance(a, torch.Tensor) else a for a in inputs]
    devices = sorted({a.device.index or 0 for a in args
                      if isinstance(a, torch.Tensor) and a.device.type == "cuda"})
    with torch.random.fork_rng(devices=devices), unset_fake_temporarily():
        try:
            torch._dynamo.disable(torch.fx.Interpreter(gm).run)(*args)
        except Exception as exc:  # noqa: BLE001 - the verdict itself
            line = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
            return f"raises: {type(exc).__name__}: {line[:200]}"
    return "runs"
