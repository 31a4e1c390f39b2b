"""Python numbers a graph takes as inputs, for the accuracy checker's localisation.

Dynamo lifts a Python float that changed between calls into a 0-d tensor input and reads it
back with `.item()` (torch._dynamo's tensorified float). Inductor compiles such a graph only
inside Dynamo's shape environment: compiled again on its own, as the localiser compiles each
prefix of a graph, the `.item()` fails (DataDependentOutputException), so no difference in a
graph with a lifted number could be placed, whatever its cause. Each prefix is compiled
instead with the number's value in this call written into the graph (the inputs are this
call's anyway). When even the whole graph, so compiled, agrees with eager, the code that ran
computed with another value of the number than this call's (pytorch#197889: a float used
both in tensor arithmetic and as an op's scalar argument goes stale): the first op reading
the number is where the difference starts."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx
from torch.utils import _pytree as pytree


def lifted(gm: torch.fx.GraphModule, args: list[Any]) -> dict[torch.fx.Node, tuple[str, Any]]:
    """The graph's `.item()` reads of 0-d tensor inputs, each with the input's name (Dynamo's
    `l_eps_` is the user's `eps`) and its value in ARGS."""
    position = {n: i for i, n in enumerate(n for n in gm.graph.nodes if n.op == "placeholder")}
    found: dict[torch.fx.Node, tuple[str, Any]] = {}
    for node in gm.graph.nodes:
        if node.op != "call_method" or node.target != "item" or not node.args:
            continue
        src = node.args[0]
        if not isinstance(src, torch.fx.Node) or src not in position:
            continue
        i = position[src]
        value = args[i] if i < len(args) else None
        if isinstance(value, torch.Tensor) and value.dim() == 0:
            found[node] = (user_name(src.name), value.item())
    return found


def user_name(placeholder: str) -> str:
    """Dynamo's name of an input (`l_eps_`, `L_eps_`) as the user's variable (`eps`)."""
    name = placeholder
    if name[:2] in ("l_", "L_"):
        name = name[2:]
    return name.rstrip("_") or placeholder


def specialised(gm: torch.fx.GraphModule, args: list[Any]) -> torch.fx.GraphModule:
    """A copy of GM with each lifted number's `.item()` replaced by its value in ARGS (GM
    itself when it reads none): what the graph computes for this call, compilable on its own."""
    reads = lifted(gm, args)
    if not reads:
        return gm
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, Any] = {}
    for node in gm.graph.nodes:
        if node in reads:
            env[node] = reads[node][1]
            continue
        env[node] = graph.node_copy(node, lambda n: env[n])
    out = torch.fx.GraphModule(gm, graph)
    out.recompile()
    return out


def first_reader(gm: torch.fx.GraphModule, args: list[Any]) -> tuple[torch.fx.Node, str] | None:
    """The first tensor op (graph order) computed from a lifted number, with the number's
    name; None when the graph reads none."""
    reads = lifted(gm, args)
    if not reads:
        return None
    tainted: dict[torch.fx.Node, str] = {n: name for n, (name, _) in reads.items()}
    for node in gm.graph.nodes:
        if node in tainted or node.op == "output":
            continue
        src = next((tainted[a] for a in pytree.tree_leaves((node.args, node.kwargs))
                    if isinstance(a, torch.fx.Node) and a in tainted), None)
        if src is None:
            continue
        if isinstance(node.meta.get("example_value", node.meta.get("val")), torch.Tensor):
            return node, src
        tainted[node] = src  # a Python number computed from it (1 - eps)
    return None
