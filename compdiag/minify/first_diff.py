"""The first op of a wrong gradient's backward graph whose compiled value differs from eager's.

A wrong gradient is kept as the backward graph with its real inputs (the saved tensors and the
incoming gradients, capture/backward_graphs.py). A bug at one op shows first at that op, so one
compile tells the minifier where to start: the whole graph with every tensor a node computes
as an output, each output judged against the value eager computed for that node on the same
inputs (and its float64 value) by the oracle's own rule (`oracle.mismatch`: same(), the fp64
reference, the tolerance the capture used). The minifier then tries that op alone, fed with
eager's values, and, when the op alone is right (its inputs carry the difference: an exact
comparison with a recomputed value), the ops it reads from with it. Two compiles where
truncating the graph costs about log2(nodes) + 1.

Inductor fuses differently when every value is an output; when the bug hides there, no op is
found, one compile was spent, and the minifier's usual passes run."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any, Callable

import torch
import torch.fx

from compdiag.minify import oracle
from compdiag.minify.graph import Candidate, Model, Problem

# (gm, inputs, config, grad_enabled) -> ("values", compiled outputs) | ("fail", why)
Values = Callable[..., tuple[str, Any]]
MIN_NODES = 4   # below this, truncating the graph costs no more than the two compiles here


def applies(problem: Problem, nodes: int) -> bool:
    """A wrong gradient (an accuracy failure kept from the backward graph) of a graph large
    enough for the probe to save compiles."""
    return problem.kind == "accuracy" and problem.doc.get("graph") == "backward" \
        and nodes >= MIN_NODES


def compiled_values(gm: torch.fx.GraphModule, inputs: list[Any], config: dict[str, Any],
                    grad_enabled: bool = False) -> tuple[str, Any]:
    """Compile `gm` with Inductor as the oracle does (compile_fx, `config` patched) and run it
    on clones of `inputs`: ("values", its outputs), or ("fail", why) when it does not."""
    import torch._dynamo
    from torch._inductor.compile_fx import compile_fx

    torch._dynamo.reset()
    try:
        with torch._inductor.config.patch(config), torch.set_grad_enabled(grad_enabled):
            out = compile_fx(gm, oracle._clone(inputs))(*oracle._clone(inputs))
    except Exception as exc:  # noqa: BLE001 - the probe only guides; the passes decide
        return ("fail", f"{type(exc).__name__}: {exc}"[:200])
    finally:
        torch._dynamo.reset()
    return ("values", oracle._leaves(out))


def everything(model: Model) -> Candidate:
    """The whole graph with every tensor-valued node an output, in graph order."""
    kept = frozenset(model.order)
    return Candidate(kept, tuple(n for n in model.order if model.tensor_valued(n)))


def cone(model: Model, c: Candidate, name: str) -> Candidate | None:
    """`name` and every kept node it reads from, directly or not; `name` the one output."""
    if name not in c.kept or not model.tensor_valued(name):
        return None
    return model.normalise(replace(c, outputs=(name,)))


def reference64(model: Model) -> dict[str, Any]:
    """Every node's value in float64 (the graph and its float inputs cast up), as the oracle's
    reference; {} when the graph has no float64 kernels."""
    values: dict[str, Any] = {}

    class Keep(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            values[n.name] = out = super().run_node(n)
            return out

    try:
        with torch.no_grad():
            Keep(copy.deepcopy(model.gm).to(torch.float64)).run(
                *oracle._to64(list(model.problem.inputs)))
    except Exception:  # noqa: BLE001 - judged against eager alone then
        return {}
    return values


def first_differing(model: Model, values: Values) -> tuple[str | None, str]:
    """(the first node whose compiled value differs from eager's, why), or (None, why not).
    One compile of the whole graph (`values`)."""
    c = everything(model)
    if not c.outputs:
        return None, "no node computes a tensor"
    built = model.build(c)
    outcome = values(built.gm, built.inputs, built.config,
                     bool(model.problem.doc.get("grad_enabled")))
    if outcome[0] != "values":
        return None, f"the graph with every value an output did not run: {outcome[1]}"
    got = list(outcome[1])
    if len(got) != len(c.outputs):
        return None, f"{len(c.outputs)} outputs expected, {len(got)} computed"
    ref64 = reference64(model)
    tol = model.problem.doc.get("tol")
    for name, res in zip(c.outputs, got):
        why = oracle.mismatch(model.values[name], res, ref64.get(name), tol)
        if why is not None:
            return name, why.removeprefix("output 0: ")
    return None, "every value agrees with eager's when each is an output"
