"""Explicit round trips through a lower float dtype, which Inductor leaves out.

`x.to(torch.bfloat16).to(torch.float32)` asks for `x` rounded to bfloat16's precision (to
simulate lower-precision activations, to add quantisation noise, to match another
implementation). Inductor fuses the two casts and keeps the value in float32 unless
`torch._inductor.config.emulate_precision_casts` is on, so the compiled result is the
unrounded value. The graph check judges an output computed through bfloat16 at bfloat16's
tolerance (accuracy_compare.computed_in), which that difference passes, while the whole
function, judged at float32's, does not: the two levels disagreed and the function's check
called it a wrong trace (probes33f bf16_rounding_sim). Here the graph's output is judged again
at its own dtype's tolerance where a round trip feeds it: a difference beyond it, with the
compiled result at the unrounded float64 reference and eager not, is the dropped rounding."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx

from compdiag.capture.accuracy_compare import GraphCheck, Tolerance, _described

_LOW = (torch.float16, torch.bfloat16)
# Dynamo's spellings of a dtype cast (a method call on the tensor)
_CAST_METHODS = frozenset({"to", "type", "type_as", "float", "double", "half", "bfloat16"})


def _dtype(n: Any) -> torch.dtype | None:
    v = n.meta.get("example_value") if isinstance(n, torch.fx.Node) else None
    return v.dtype if isinstance(v, torch.Tensor) else None


def _is_cast(n: torch.fx.Node) -> bool:
    if n.op == "call_method":
        return n.target in _CAST_METHODS
    name = getattr(n.target, "__name__", "") if n.op == "call_function" else ""
    return name in ("to", "_to_copy", "convert_element_type")


def _finer(a: torch.dtype | None, b: torch.dtype) -> bool:
    """Whether float dtype `a` rounds more finely than `b`."""
    return a is not None and a.is_floating_point and torch.finfo(a).eps < torch.finfo(b).eps


def round_trips(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """The casts down to float16/bfloat16 of a finer float value that a user takes straight
    back to a finer float dtype: a cast up (`.float()`), or an op that promotes it with a finer
    operand (`(x @ w).to(torch.bfloat16) + b` with a float32 `b`, pytorch#181568)."""
    graph = getattr(gm, "graph", None)
    found = []
    for n in graph.nodes if graph is not None else ():
        low = _dtype(n)
        if low not in _LOW or not _is_cast(n) or not n.all_input_nodes:
            continue
        if _finer(_dtype(n.all_input_nodes[0]), low) and any(
                _finer(_dtype(u), low) for u in n.users):
            found.append(n)
    return found


def _feeds(trip: torch.fx.Node, gm: torch.fx.GraphModule, index: int) -> bool:
    """Whether the graph's output `index` is computed from `trip`."""
    out = next((n for n in reversed(gm.graph.nodes) if n.op == "output"), None)
    from torch.utils import _pytree as pytree

    leaves = pytree.tree_leaves(out.args[0]) if out is not None else []
    todo = [leaves[index]] if index < len(leaves) and isinstance(leaves[index],
                                                                 torch.fx.Node) else []
    seen: set[torch.fx.Node] = set()
    while todo:
        n = todo.pop()
        if n is trip:
            return True
        if n not in seen:
            seen.add(n)
            todo.extend(n.all_input_nodes)
    return False


def judge_round_trips(check: GraphCheck, gm: torch.fx.GraphModule, tol: Tolerance) -> None:
    """Each output a round trip feeds that differs from eager beyond its own dtype's tolerance,
    with compiled at the unrounded float64 reference and eager not, gets verdict
    `dropped_rounding`, at the cast down (the check's divergent node): whether the check passed
    it at the lower dtype's tolerance or called compiled the more accurate (the code asked for
    the rounding: being nearer the unrounded value is the bug, pytorch#185337)."""
    trips = round_trips(gm)
    for i, o in enumerate(check.outputs if trips else ()):
        f64 = o.detail.get("fp64") or {}
        e, k = f64.get("eager_rel"), f64.get("compiled_rel")
        if e is None or k is None or (o.ok and "computed_in" not in o.detail):
            continue
        try:
            own = tol.tol_for(getattr(torch, str(o.detail.get("dtype")).removeprefix("torch.")))
        except (AttributeError, TypeError):
            continue
        trip = next((t for t in trips if _feeds(t, gm, i)), None)
        if trip is None or not e > own >= k or (o.ok and not (o.max_abs or 0.0) > own):
            continue
        low = str(_dtype(trip)).removeprefix("torch.")
        o.ok = False
        o.detail.update(verdict="dropped_rounding", rounded_to=low, tol=own,
                        reason=f"max abs error {o.max_abs:.3g}, beyond "
                               f"{str(o.detail['dtype']).removeprefix('torch.')}'s tolerance "
                               f"{own:g}; relative RMSE against the unrounded float64 value: "
                               f"eager {e:.3g}, compiled {k:.3g}")
        if check.divergent_node is None:
            check.divergent_node = _described(trip)
