"""A float converted to an integer dtype outside that dtype's range, at the first divergent
node: the conversion is undefined there (C's float-to-integer rule), and eager and the
compiled kernel resolve it differently (eager wraps 128.0 to -128 in int8, Inductor's kernel
saturates to 127). The verdict is then not a compiler bug but the program's out-of-range
values (probes32f int8_weight_only_linear: `round(w / scale).to(torch.int8)` with a scale
mapping each row's maximum to 128; said as "compiled 1.74e+06x further from float64",
never naming int8's range). The facts are recorded with the node; analyses/narrowing_words.py
says them."""

from __future__ import annotations

from typing import Any

import torch

# the FX targets that convert a tensor's dtype (Dynamo's `x.to(...)`/`x.type(...)` methods,
# aten/prims after decomposition)
_CONVERTS = ("to", "type", "_to_copy", "convert_element_type")


def integer_target(node: torch.fx.Node) -> torch.dtype | None:
    """The integer dtype NODE converts its first argument to, or None."""
    name = node.target if isinstance(node.target, str) else getattr(
        node.target, "__name__", str(node.target))
    if str(name).split(".")[0] not in _CONVERTS:
        return None
    dtype = next((a for a in (*node.args[1:], *node.kwargs.values())
                  if isinstance(a, torch.dtype)), None)
    if dtype is None or dtype.is_floating_point or dtype.is_complex or dtype == torch.bool:
        return None
    return dtype


def out_of_range(dtype: torch.dtype, value: Any) -> dict[str, Any] | None:
    """{dtype, range, count, of, min, max} where the floating VALUE has elements outside
    DTYPE's range (nan and inf included), else None."""
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        return None
    info = torch.iinfo(dtype)
    v = value.detach().double()
    finite = v[torch.isfinite(v)]
    bad = int(((finite > info.max) | (finite < info.min)).sum()) + (v.numel() - finite.numel())
    if bad == 0:
        return None
    return {"dtype": str(dtype).removeprefix("torch."), "range": [info.min, info.max],
            "count": bad, "of": v.numel(),
            "min": float(finite.min()) if finite.numel() else None,
            "max": float(finite.max()) if finite.numel() else None}


def narrowing(gm: torch.fx.GraphModule, name: str, values: Any) -> dict[str, Any] | None:
    """The out-of-range facts of node NAME of GM when it converts floats to an integer dtype;
    VALUES() runs GM eagerly once and gives every node's value by name (called only then)."""
    node = next((n for n in gm.graph.nodes if n.name == name), None)
    dtype = integer_target(node) if node is not None else None
    source = node.args[0] if node is not None and node.args else None
    if dtype is None or not isinstance(source, torch.fx.Node):
        return None
    return out_of_range(dtype, values().get(source.name))
