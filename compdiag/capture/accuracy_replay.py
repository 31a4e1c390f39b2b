"""Eager replays of a captured graph for the accuracy check: on clones of the call's inputs,
under the program's modes, and in float64 as the reference. Shared by the check itself
(capture/accuracy.py) and the search for the op that diverges (capture/accuracy_localise.py),
so neither imports the other."""

from __future__ import annotations

import contextlib
import copy
import warnings
from typing import Any, Callable

import torch
import torch.fx

from compdiag.capture.accuracy_compare import _clone, _to64
from compdiag.formats import lazy_re


# The float dtypes a graph casts to that the float64 reference computes in float64 instead:
# a graph that casts its input down (`x.bfloat16() @ W`) and back up (`h.float()`) would
# otherwise give a reference in bfloat16's precision, of float32's dtype, which is no
# reference at all (probes26 acc_bf16_weights_upcast: no verdict, "computed wrongly by matmul"
# where compiled was 2.2x closer to float64 than eager).
_LOW_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


_CAST_METHODS = ("half", "bfloat16", "float")


def _gm64(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The graph in float64: its parameters and buffers, and every cast to a lower float
    dtype it makes (a method `.half()`/`.bfloat16()`/`.float()`, a dtype argument)."""
    g = copy.deepcopy(gm)

    def wide(a: Any) -> Any:
        return torch.float64 if isinstance(a, torch.dtype) and a in _LOW_FLOATS else a

    for n in g.graph.nodes:
        if n.op == "call_method" and n.target in _CAST_METHODS:
            n.target = "double"
        elif n.op in ("call_method", "call_function"):
            n.args = torch.fx.node.map_aggregate(n.args, wide)
            n.kwargs = torch.fx.node.map_aggregate(n.kwargs, wide)
    g.recompile()
    return g.to(torch.float64)


def _eager(gm: Callable[..., Any], args: list[Any], rng: torch.Tensor,
           exact: bool = False, keep: dict[int, Any] | None = None) -> Any:
    """Eager on clones of `args`, under the program's modes (the call's own: this runs inside
    it); `exact`: with autocast off, for the float64 reference autocast would round down;
    `keep` receives, by index, the clones the run changed in place (only those: the others
    would hold a copy of every parameter for nothing)."""
    torch.random.set_rng_state(rng)
    cloned = _clone(args)
    # a graph of torch.func transforms sets grad mode itself and differentiates inside:
    # under no_grad its replay returned zeros (probes26 vmap(grad(...)): a false miscompile)
    grad_off = contextlib.nullcontext() if transforms_in(gm) else torch.no_grad()
    with grad_off, _no_autocast() if exact else contextlib.nullcontext():
        out = quiet_call(gm, cloned)
    if keep is not None:
        keep.update({i: c for i, c in enumerate(cloned) if _changed(args[i], c)})
    return out


def quiet_call(gm: Callable[..., Any], args: list[Any]) -> Any:
    """`gm(*args)` without torch.fx's message on the program's stderr: a GraphModule's call
    prints the failing line of its generated code before it re-raises (probes35c
    ista_custom_op_ok: the float64 replay of a graph that builds a float32 tensor raised, and
    24 lines of torch.fx's traceback reached a program whose plain run printed none). The
    checker's replays are compdiag's, and so is their failure, and any warning they set off
    (probes42b pose_heatmap_peak_eq_bf16: the float64 replay of a graph entering bf16
    autocast printed torch's "In CPU autocast, but the target dtype is not supported" on a
    program whose plain run printed nothing)."""
    with warnings.catch_warnings(), _global_state():
        warnings.simplefilter("ignore")
        if isinstance(gm, torch.fx.GraphModule):
            return torch.nn.Module.__call__(gm, *args)
        return gm(*args)


@contextlib.contextmanager
def _global_state() -> Any:
    """Grad mode and autocast as they were, however the replay ended (`global_state`)."""
    saved = global_state()
    try:
        yield
    finally:
        restore_global_state(saved)


def global_state() -> tuple[bool, list[tuple[str, bool, Any]]]:
    """Grad mode and each device's autocast (on, dtype) now. A Dynamo graph sets them itself
    (`_set_grad_enabled(False)` for a `with torch.no_grad()` inside the function,
    `_enter_autocast`), and a replay that raised between a set and its reset left the
    program's grad mode off (probes42b pose_heatmap_peak_eq_bf16 under --check-accuracy: the
    float64 replay of a bf16 autocast graph raised, the next call recompiled on grad_mode,
    and the program ran on without gradients)."""
    autocast = []
    for dt in ("cpu", "cuda"):
        try:
            autocast.append((dt, torch.is_autocast_enabled(dt), torch.get_autocast_dtype(dt)))
        except (TypeError, RuntimeError, AttributeError):  # another torch's signature
            continue
    return torch.is_grad_enabled(), autocast


def restore_global_state(saved: tuple[bool, list[tuple[str, bool, Any]]]) -> None:
    grad, autocast = saved
    torch.set_grad_enabled(grad)
    for dt, on, dtype in autocast:
        try:
            torch.set_autocast_enabled(dt, on)
            torch.set_autocast_dtype(dt, dtype)
        except (TypeError, RuntimeError, AttributeError):
            continue


_NESTING = lazy_re.compile(r"^_(\w+?)_increment_nesting$")


def transforms_in(gm: Any) -> list[str]:
    """The torch.func transforms (jvp, vmap, grad) the graph enters, in order: Dynamo traces
    each as `_<name>_increment_nesting` around the transformed code."""
    graph = getattr(gm, "graph", None)
    names = [m.group(1) for n in (graph.nodes if graph is not None else ())
             if n.op == "call_function"
             and (m := _NESTING.match(str(getattr(n.target, "__name__", "") or "")))]
    return list(dict.fromkeys(names))


def _changed(before: Any, after: Any) -> bool:
    """Whether a tensor input differs after a run from its value before (NaN equal to NaN);
    False for anything that cannot be compared (sparse, nested, meta tensors)."""
    if not (isinstance(before, torch.Tensor) and isinstance(after, torch.Tensor)):
        return False
    try:
        if after.shape != before.shape or after.dtype != before.dtype:
            return True
        a = after.detach().to(before.device)
        if before.is_floating_point() or before.is_complex():
            return not bool(torch.equal(a.isnan(), before.isnan())
                            and torch.equal(a.nan_to_num(0.0), before.nan_to_num(0.0)))
        return not bool(torch.equal(a, before))
    except Exception:  # noqa: BLE001 - an input it cannot compare is left out, not the check
        return False


@contextlib.contextmanager
def _no_autocast():
    with contextlib.ExitStack() as stack:
        for dt in ("cpu", "cuda"):
            try:
                if torch.is_autocast_enabled(dt):
                    stack.enter_context(torch.autocast(dt, enabled=False))
            except (TypeError, RuntimeError, AttributeError):  # another torch's signature
                continue
        yield


def paired_values(gm: torch.fx.GraphModule, args: list[Any], rng: torch.Tensor) -> Any:
    """Each node of GM with its eager value and its float64 value, in graph order, the two
    runs in lockstep (each with its own RNG stream from `rng`) and every value dropped after
    its last use: the first node where precision is lost is found in one pass over the graph,
    with the memory of one eager run in each dtype. A search over prefixes that each return
    one node's value is not monotone (a later node that does not read the lossy one is
    exact again), so a bisection over them could stop past the cause (probes39g
    zscore_onepass_price: the clamp after `E[x^2] - E[x]^2`, not the subtraction)."""
    wide = _gm64(gm)
    runs = [torch.fx.Interpreter(gm), torch.fx.Interpreter(wide)]
    runs[0].args_iter = iter(_clone(args))
    runs[1].args_iter = iter(_clone(_to64(args)))
    states = [rng, rng]
    last: dict[str, str] = {}
    for node in gm.graph.nodes:
        for used in node.all_input_nodes:
            last[used.name] = node.name
    dying: dict[str, list[str]] = {}
    for name, user in last.items():
        dying.setdefault(user, []).append(name)
    grad_off = contextlib.nullcontext() if transforms_in(gm) else torch.no_grad()
    pairs = list(zip(gm.graph.nodes, wide.graph.nodes))
    by_name = [{n.name: n for n in g.graph.nodes} for g in (gm, wide)]
    with grad_off:
        for node, twin in pairs:
            if node.op == "output":
                return
            values = []
            for k, (run, n) in enumerate(zip(runs, (node, twin))):
                torch.random.set_rng_state(states[k])
                run.env[n] = run.run_node(n)
                states[k] = torch.random.get_rng_state()
                values.append(run.env[n])
            yield node, values[0], values[1]
            for name in dying.get(node.name, ()):
                for run, named in zip(runs, by_name):
                    run.env.pop(named[name], None)
