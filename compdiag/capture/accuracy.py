"""Accuracy against eager, inside the user's process (`run --check-accuracy`, the pytest plugin).

Every graph Dynamo hands to the backend is kept (graph copied, parameters shared); the first
calls of its compiled function are replayed eagerly on clones of the same inputs, twice (to
tell eager non-determinism from a compiler bug), and in float64 as the reference. The rules
are torch._dynamo.utils.same's (allclose, then RMSE against fp64 with a multiplier), plus a
NaN/Inf-pattern check. The user's call returns the compiled result untouched; RNG state and
module buffers are restored after the replays, so the program's numbers do not change."""

from __future__ import annotations

import contextlib
import copy
import operator
from typing import Any, Callable

import torch
import torch.fx
from torch.utils import _pytree as pytree



# What one check compares (capture/accuracy_compare.py, shared with the gradient check);
# the names other modules take from here are re-exported.
from compdiag.capture import tf32
from compdiag.capture.accuracy_compare import (  # noqa: F401
    GraphCheck, OutputCheck, Tolerance, _clone, _described, _leaves, _op_name, _preserved_state,
    computed_in,
    _to64,
    compare_output, compare_outputs, describe_inputs, fp64_errors, user_line)
from compdiag.capture.mutated_args import dropped_copy, written
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
        out = gm(*cloned)
    if keep is not None:
        keep.update({i: c for i, c in enumerate(cloned) if _changed(args[i], c)})
    return out


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


def _updated(before: list[Any], after: list[Any], *replays: dict[int, Any]) -> list[int]:
    """The inputs a run changed in place (an optimizer step's parameters and state): the
    compiled call's (`after`, its real arguments) or an eager replay's (`replays`). An input
    whose memory another input shares is left out: the replays clone each input on its own,
    so a write through one no longer shows in the other, as it does in the real call."""
    shared = _sharing(after)
    return [i for i, b in enumerate(before) if i not in shared and (
        _changed(b, after[i] if i < len(after) else None)
        or any(i in r for r in replays))]


def _sharing(args: list[Any]) -> set[int]:
    """Indices of tensor inputs whose storage another input uses too (views of one buffer)."""
    seen: dict[int, list[int]] = {}
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            try:
                seen.setdefault(a.untyped_storage().data_ptr(), []).append(i)
            except Exception:  # noqa: BLE001 - no storage (nested, functional): its own
                continue
    return {i for ids in seen.values() if len(ids) > 1 for i in ids}


def _updated_names(gm: torch.fx.GraphModule, indices: list[int]) -> dict[int, str]:
    """Each updated input's output name, as the program names the input (its placeholder's
    source), read from the graph once."""
    from compdiag.capture.grad_accuracy import _input_names

    try:
        names = _input_names(gm) if indices else []
    except Exception:  # noqa: BLE001 - a name is a nicety
        names = []
    return {i: f"input {names[i] if i < len(names) else i} (updated in place)" for i in indices}


def _param_versions(gm: torch.fx.GraphModule, args: tuple[Any, ...]
                    ) -> tuple[tuple[Any, int], ...]:
    """(where, in-place version counter) of each parameter the graph reads: among its
    arguments (Dynamo passes a module's parameters in), and its own attributes (under
    freezing Dynamo keeps them there, for Inductor to fold as constants). A version that
    moved is a parameter the program changed in place."""
    out: list[tuple[Any, int]] = [(i, a._version) for i, a in enumerate(args)
                                  if isinstance(a, torch.nn.Parameter)]
    try:
        out += [(name, t._version) for name, t in (*gm.named_parameters(),
                                                   *gm.named_buffers())]
    except Exception:  # noqa: BLE001 - no attributes to watch
        pass
    return tuple(out)


def _changed_params(gm: torch.fx.GraphModule, before: tuple[tuple[Any, int], ...] | None,
                    now: tuple[tuple[Any, int], ...]) -> list[str]:
    """The parameters whose version moved, named as the program spells them where it can."""
    from compdiag.capture.grad_accuracy import _input_names
    from compdiag.formats.guard_source import in_user_spelling

    try:
        names = _input_names(gm)
    except Exception:  # noqa: BLE001 - a name is a nicety
        names = []
    out = []
    for (where, v), (_, v0) in zip(now, before or ()):
        if v != v0:
            out.append(names[where] if isinstance(where, int) and where < len(names)
                       else in_user_spelling(str(where)))
    return out


def _first_reader(gm: torch.fx.GraphModule, names: list[str]) -> dict[str, Any] | None:
    """The first op (graph order) reading one of the graph's attributes `names`, described
    as a divergent node is (its user line); None when no op reads one."""
    from compdiag.capture.accuracy_compare import _described

    wanted = set(names)
    attrs = {n for n in gm.graph.nodes if n.op == "get_attr" and n.target in wanted}
    return next((_described(n) for n in gm.graph.nodes
                 if n.op == "call_function" and any(a in attrs for a in n.all_input_nodes)),
                None)


def _freezing() -> bool:
    try:
        import torch._inductor.config as inductor_config
        return bool(getattr(inductor_config, "freezing", False))
    except Exception:  # noqa: BLE001
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


def check_graph(gm: torch.fx.GraphModule, compiled_out: Any, args_before: list[Any],
                rng_before: torch.Tensor, tol: Tolerance, compile_id: str | None,
                args_after: list[Any] | None = None) -> GraphCheck:
    """Eager against compiled on the program's own inputs: the graph's outputs, and each
    input a run updated in place (`args_after`: the compiled call's arguments after it), which
    is a result too (an optimizer step returns nothing)."""
    kept1: dict[int, Any] = {}
    kept2: dict[int, Any] = {}
    kept64: dict[int, Any] = {}
    with _preserved_state(gm):
        try:
            eager1 = _eager(gm, args_before, rng_before, keep=kept1)
        except Exception as exc:  # noqa: BLE001 - compiled returned a value: a verdict
            return eager_rejects(gm, args_before, rng_before, exc, compile_id)
        eager2 = _eager(gm, args_before, rng_before, keep=kept2)
        try:
            ref64 = _eager(_gm64(gm), _to64(args_before), rng_before, exact=True, keep=kept64)
        except Exception:  # noqa: BLE001 - some graphs have no float64 kernels
            ref64 = None
    again = compare_outputs(eager1, eager2, eager1, Tolerance(rtol=0.0, atol=0.0))
    outs = compare_outputs(eager1, compiled_out,
                           ref64 if ref64 is not None else eager1, tol, computed_in(gm))
    if args_after is not None:
        updated = [i for i in _updated(args_before, args_after, kept1) if i < len(args_after)]
        for i, name in _updated_names(gm, updated).items():
            # an input a run left as it was is its value before, in that run
            e1, e2 = kept1.get(i, args_before[i]), kept2.get(i, args_before[i])
            again.append(compare_output(name, e1, e2, e1, Tolerance(rtol=0.0, atol=0.0)))
            outs.append(compare_output(name, e1, args_after[i], kept64.get(i, e1), tol))
    nondeterministic = not all(o.ok for o in again)
    if ref64 is not None and tf32.notable(outs) and tf32.may_apply(gm, args_before):
        with _preserved_state(gm), tf32.off():
            without = _eager(gm, args_before, rng_before)
        tf32.judge(outs, _leaves(without), _leaves(ref64))
    if nondeterministic:
        for o in outs:
            o.detail["eager_nondeterministic"] = True
            if not o.ok:
                o.detail["reason"] = ("eager itself is non-deterministic on this graph (two eager "
                                      "runs disagree); not attributed to the compiler")
                o.ok = True
    return GraphCheck(compile_id, outs, nondeterministic=nondeterministic,
                      inputs=describe_inputs(args_before),
                      updated_inputs=bool(args_after is not None and updated))


def eager_rejects(gm: torch.fx.GraphModule, args: list[Any], rng: torch.Tensor,
                  exc: BaseException, compile_id: str | None) -> GraphCheck:
    """Eager raised on the program's own inputs where the compiled graph returned a value:
    the compiled code accepted what the op rejects (a check Inductor dropped), a miscompile at
    the op that raised (found by running the graph node by node)."""
    failing: list[torch.fx.Node] = []

    class Find(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            try:
                return super().run_node(n)
            except Exception:
                failing.append(n)
                raise

    try:
        with _preserved_state(gm):
            torch.random.set_rng_state(rng)
            with torch.no_grad():
                Find(gm).run(*_clone(args))
    except Exception:  # noqa: BLE001, S110 - the node it raised at is what we wanted
        pass
    message = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    out = OutputCheck("outputs", False, None, None, {
        "verdict": "eager_rejects", "eager_error": message,
        "reason": f"eager raised {message}; the compiled graph returned a value"})
    node = _described(failing[-1]) if failing else None
    return GraphCheck(compile_id, [out], divergent_node=node, inputs=describe_inputs(args))


# -- localisation -----------------------------------------------------------------------------
def _prefix_graph(gm: torch.fx.GraphModule, upto: torch.fx.Node) -> torch.fx.GraphModule:
    """The graph up to `upto`, returning its value (for an op that returns nothing and writes
    its inputs in place, the inputs it wrote), and every graph input written so far: once
    compiled code has written an input wrongly, every later prefix shows it, so the search
    for the first divergent prefix stays monotone (a later op reading an untouched view of
    that input would hide it)."""
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    inputs: list[torch.fx.Node] = []
    for node in gm.graph.nodes:
        if node.op == "output":
            continue
        env[node] = graph.node_copy(node, lambda n: env[n])
        inputs += [i for i in map(_input_of, written(node)) if i is not None]
        if node is upto:
            break
    value = upto.meta.get("example_value", upto.meta.get("val"))
    own = [upto] if isinstance(value, torch.Tensor) else written(upto)
    graph.output(tuple(env[n] for n in dict.fromkeys([*own, *inputs])))
    sub = torch.fx.GraphModule(gm, graph)
    sub.graph.eliminate_dead_code()
    sub.recompile()
    return sub


def _input_of(node: torch.fx.Node) -> torch.fx.Node | None:
    """The graph input a written node is (or is a view of, through its first arguments)."""
    for _ in range(32):
        if node.op == "placeholder":
            return node
        if node.op not in ("call_function", "call_method") or not node.args or \
                not isinstance(node.args[0], torch.fx.Node):
            return None
        node = node.args[0]
    return None


def _computational(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """The nodes whose value can be compared: a tensor, or the inputs an op writes in place
    (a custom op that mutates its arguments returns nothing)."""
    return [n for n in gm.graph.nodes
            if n.op in ("call_function", "call_method", "call_module")
            and (isinstance(n.meta.get("example_value", n.meta.get("val")), torch.Tensor)
                 or written(n))]


def _transform_plumbing(node: torch.fx.Node) -> bool:
    """A node of torch.func's machinery (functorch's wrapping and unwrapping of levels, and
    the items taken from what it unpacked)."""
    if node.op != "call_function":
        return False
    if node.target is operator.getitem:
        return any(_transform_plumbing(a) for a in node.all_input_nodes)
    module = getattr(node.target, "__module__", None) or ""
    return module.startswith(("torch._functorch", "torch._C._functorch"))


def output_node(gm: torch.fx.GraphModule, index: int) -> dict[str, Any] | None:
    """The node computing output `index` (the last with a user line before it): where a
    divergence shows when no prefix of the graph could be compared on its own."""
    out = next((n for n in gm.graph.nodes if n.op == "output"), None)
    if out is None:
        return None
    leaves = [a for a in pytree.tree_leaves(out.args) if isinstance(a, torch.fx.Node)]
    node = leaves[index] if 0 <= index < len(leaves) else None
    while node is not None and _transform_plumbing(node):
        # torch.func's unwrapping of the transform's result is at the transform's call: the
        # value it unwraps is computed at the user's op (acc_traced_custom_jvp: the `@` of
        # the Function's result, not the `torch.func.jvp(...)` line)
        node = next((a for a in node.all_input_nodes if a.op != "placeholder"), None)
    if node is None or user_line(node) is None:
        nodes = [n for n in _computational(gm) if user_line(n)]
        node = nodes[-1] if nodes else node
    return _described(node, localised=False) if node is not None else None


def localise_conditioning(gm: torch.fx.GraphModule, args: list[Any], rng: torch.Tensor,
                          tol: Tolerance) -> dict[str, Any] | None:
    """The first node whose eager value is already beyond the tolerance from its float64
    value: where the conditioning bites. Eager runs only (no compiles), log2(nodes) prefixes."""
    nodes = _computational(gm)
    if not nodes:
        return None

    def far(k: int) -> bool:
        sub = _prefix_graph(gm, nodes[k])
        with _preserved_state(gm):
            lo = _eager(sub, args, rng)
            hi = _eager(_gm64(sub), _to64(args), rng)
        for a, b in zip(_leaves(lo), _leaves(hi)):
            if isinstance(a, torch.Tensor) and a.is_floating_point():
                errs = fp64_errors(a, a, b)
                if errs and errs["eager_rel"] > tol.tol_for(a.dtype):
                    return True
        return False

    found = first_true(len(nodes), far)
    return None if found is None else _described(nodes[found[0]], localised=True, by="float64")


def first_true(n: int, pred: Callable[[int], bool]) -> tuple[int, int] | None:
    """The first prefix index where `pred` holds (it holds from there on), by binary search;
    with the number of queries. None when it does not hold for the whole graph."""
    lo, hi = 0, n - 1
    if not pred(hi):
        return None
    queries = 1
    while lo < hi:
        mid = (lo + hi) // 2
        queries += 1
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo, queries


# Verdicts where the compiled numbers are not wrong code: closer to float64 than eager's, an
# ill-conditioned computation, only where the result overflows, a dtype torch promotes
# differently. No op "computes wrongly" there; the first node that differs is the answer.
NOT_WRONG_CODE = ("compiled_more_accurate", "ill_conditioned", "inf_nan", "dtype_promotion",
                  "tf32")


def wrong_code(check: GraphCheck) -> bool:
    """Whether a failed check's first differing output is a plain miscompile (different
    numbers, integers or floats, with no verdict that explains them away)."""
    bad = [o for o in check.outputs if not o.ok]
    return bool(bad) and (bad[0].detail or {}).get("verdict") not in NOT_WRONG_CODE


def localise(gm: torch.fx.GraphModule, compiler: Callable[..., Any], args: list[Any],
             rng: torch.Tensor, tol: Tolerance, fused: bool = True) -> dict[str, Any] | None:
    """The first node whose compiled value diverges from eager: binary search over graph
    prefixes (each prefix compiled on its own), about log2(nodes) compiles. `fused`: then
    look for an op fused into that node whose code is the wrong one (fused_culprit; for a
    miscompile, not for a precision verdict). A Python number the graph takes as an input is
    compiled in as this call's value (capture/scalar_inputs.py); when the graph so compiled
    agrees with eager, the first op reading the number."""
    from compdiag.capture import scalar_inputs

    ran, gm = gm, scalar_inputs.specialised(gm, args)
    nodes = _computational(gm)
    if not nodes:
        return None

    found = first_true(len(nodes), lambda k: _compiled_differs(
        gm, _prefix_graph(gm, nodes[k]), args, compiler, rng, tol))
    if found is None:
        reader = scalar_inputs.first_reader(ran, args) if gm is not ran else None
        return None if reader is None else _described(
            reader[0], localised=False, fresh_compile_agrees=True, stale_input=reader[1])
    k, compiles = found
    if not fused:
        return _described(nodes[k], compiles=compiles)
    try:
        culprit, more = fused_culprit(gm, compiler, args, rng, tol, nodes, k)
    except Exception:  # noqa: BLE001 - fail open: the node whose output diverged stands
        culprit, more = None, 0
    if culprit is None:
        return _described(nodes[k], compiles=compiles + more)
    if dropped_copy(nodes[k], nodes[culprit]):
        # fed the copy's eager value the op agrees: compiled code dropped the copy, and the
        # op read the buffer it writes; the op's line is where that bites
        return _described(nodes[k], compiles=compiles + more,
                          dropped_copy=_described(nodes[culprit]))
    return _described(nodes[culprit], compiles=compiles + more,
                      shows_at={"node": nodes[k].name, "op": str(_op_name(nodes[k]))})


def _compiled_differs(gm: torch.fx.GraphModule, sub: torch.fx.GraphModule, args: list[Any],
                      compiler: Callable[..., Any], rng: torch.Tensor, tol: Tolerance) -> bool:
    """SUB (a piece of GM) compiled on its own and run on clones of ARGS differs from SUB run
    eagerly, beyond the tolerance; GM's state and the RNG restored around both."""
    with _preserved_state(gm):
        eager = _eager(sub, args, rng)
        compiled = compiler(sub, _clone(args))
        torch.random.set_rng_state(rng)
        with torch.no_grad():
            res = compiled(*_clone(args))
    return not all(c.ok for c in compare_outputs(eager, res, eager, tol))


def _values(sub: torch.fx.GraphModule, args: list[Any], rng: torch.Tensor) -> dict[str, Any]:
    """Every node's eager value in SUB, by name (one eager run)."""
    seen: dict[str, Any] = {}

    class Keep(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            seen[n.name] = out = super().run_node(n)
            return out

    torch.random.set_rng_state(rng)
    with torch.no_grad():
        Keep(sub).run(*_clone(args))
    return seen


def _suffix_graph(sub: torch.fx.GraphModule, after: torch.fx.Node
                  ) -> tuple[torch.fx.GraphModule, list[str]]:
    """SUB's nodes after AFTER (in graph order), every value they read from before it a
    placeholder of its own: what the compiled code computes when the values up to AFTER come
    from eager. With the names of those placeholders' nodes, in order."""
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    fed: list[str] = []
    started = False
    for node in sub.graph.nodes:
        if node.op == "output":
            break
        if not started:
            started = node is after
            continue

        def arg(n: torch.fx.Node) -> torch.fx.Node:
            if n not in env:
                env[n] = graph.placeholder(f"fed_{n.name}")
                fed.append(n.name)
            return env[n]
        env[node] = graph.node_copy(node, arg)
    graph.output(pytree.tree_map(lambda a: env.get(a, a) if isinstance(a, torch.fx.Node)
                                 else a, node.args[0]))  # the loop ends at the output node
    out = torch.fx.GraphModule(sub, graph)
    out.recompile()
    return out, fed


def fused_culprit(gm: torch.fx.GraphModule, compiler: Callable[..., Any], args: list[Any],
                  rng: torch.Tensor, tol: Tolerance, nodes: list[torch.fx.Node], k: int
                  ) -> tuple[int | None, int]:
    """The op whose compiled code is wrong when its own output does not show it (issue 29 §4,
    the op's line): Inductor fuses an op into its consumer, so a value it computes wrongly
    may never be stored (uint8 `abs` promoted to int inside a sum's kernel) and the first
    node whose output differs is the consumer. Here the graph up to the divergent node K is
    compiled from a later start, the values before it fed from eager: while the divergence
    remains, the ops cut off are innocent; the first op whose removal ends it is the one the
    compiled code gets wrong. None when node K diverges on its own (its inputs from eager),
    or when no cut ends the divergence. With the number of compiles it took."""
    if k == 0:
        return None, 0
    sub = _prefix_graph(gm, nodes[k])
    with _preserved_state(gm):
        values = _values(sub, args, rng)
    by_name = {n.name: n for n in sub.graph.nodes}
    own = [n.name for n in nodes[:k + 1]]
    compiles = 0

    def diverges(j: int) -> bool:
        """Divergence with nodes[j]'s own value and everything before it from eager."""
        nonlocal compiles
        suffix, fed = _suffix_graph(sub, by_name[own[j]])
        compiles += 1
        return _compiled_differs(gm, suffix, [values[name] for name in fed], compiler, rng,
                                 tol)

    if diverges(k - 1):  # node K alone, its inputs from eager: its own code
        return None, compiles
    # the largest j < k - 1 whose cut still diverges: nodes[j + 1] is needed inside
    lo, hi = -1, k - 1  # diverges at lo (the whole prefix, known), not at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if diverges(mid):
            lo = mid
        else:
            hi = mid
    return lo + 1, compiles


def _broken_contract(gm: torch.fx.GraphModule, args: list[Any], rng: torch.Tensor,
                     mutation: bool) -> dict[str, Any] | None:
    """The custom op that broke what it declared, described as the divergent node, or None:
    with `mutation`, one that wrote into an input its schema does not declare (capture/
    undeclared_mutation.py); else one whose kernel returned another dtype or shape than its
    fake says (capture/fake_mismatch.py)."""
    from compdiag.capture import fake_mismatch, undeclared_mutation

    try:
        with _preserved_state(gm):
            torch.random.set_rng_state(rng)
            if mutation:
                node = undeclared_mutation.find(gm, _clone(args))
                found = (node, {"undeclared_mutation": True}) if node is not None else None
            else:
                hit = fake_mismatch.find(gm, _clone(args))
                found = (hit[0], {"fake_mismatch": {"fake": hit[1], "kernel": hit[2]}}) \
                    if hit is not None else None
    except Exception:  # noqa: BLE001 - fail open: the divergent node found before stands
        return None
    if found is None:
        return None
    node, said = found
    name = getattr(node.target, "name", None)  # an OpOverload's 'ns::op'
    return _described(node, **said, **({"op": name()} if callable(name) else {}))


def point_at_an_op(check: GraphCheck, gm: torch.fx.GraphModule, args: list[Any],
                   rng: torch.Tensor, tol: Tolerance) -> None:
    """Every verdict names an op: an ill-conditioned output the op where eager leaves float64,
    anything else the node computing the output when localisation found none."""
    noted = [(i, o) for i, o in enumerate(check.outputs) if not o.ok or o.detail.get("verdict")]
    if not noted:
        return
    node = check.divergent_node if isinstance(check.divergent_node, dict) else None
    i, o = noted[0]
    if o.detail.get("verdict") == "ill_conditioned":
        try:
            node = localise_conditioning(gm, args, rng, tol) or node
        except Exception:  # noqa: BLE001 - fail open: the output's node below
            pass
    if not node or not node.get("user_frame"):
        fallback = output_node(gm, i)
        if fallback is not None:
            if node and node.get("error"):
                fallback["error"] = node["error"]
            node = fallback
    check.divergent_node = node


# -- the backend wrapper ------------------------------------------------------------------------
class AccuracyChecker:
    """Wraps Dynamo's call into the backend. `sink(check)` receives each GraphCheck."""

    def __init__(self, sink: Callable[[GraphCheck], None], *, tol: Tolerance | None = None,
                 calls: int = 1, localise: bool = True,
                 compile_id: Callable[[], str | None] = lambda: None,
                 quiet: Callable[[], Any] = contextlib.nullcontext, grads: bool = True) -> None:
        self.sink = sink
        self.grads = grads
        self.tol = tol or Tolerance()
        self.calls = calls
        self.localise = localise
        self.compile_id = compile_id
        self.quiet = quiet
        self._active = False
        # the graphs a watched call ran, (compile id, graph, outputs, whether its own check
        # failed) (function_accuracy.py)
        self.watched: list[tuple[str | None, Any, Any, bool]] | None = None

    def install(self) -> Callable[[], None]:
        from compdiag.capture.backend_hook import hook_backend_call

        return hook_backend_call(
            lambda: self._active,
            lambda keep, compiled, compiler: self.wrap(keep, compiled, self.compile_id(),
                                                       compiler))

    def wrap(self, gm: torch.fx.GraphModule, compiled: Callable[..., Any], cid: str | None,
             compiler: Callable[..., Any]) -> Callable[..., Any]:
        checker = self
        state: dict[str, Any] = {"calls": 0, "versions": None, "rechecked": False,
                                 "stateful": False, "bad": False}

        def checked(*args: Any) -> Any:
            out = _checked(args)
            if checker.watched is not None:  # a whole function's check (function_accuracy)
                checker.watched.append((cid, gm, out, state["bad"]))
            return out

        def _checked(args: tuple[Any, ...]) -> Any:
            recheck = state["calls"] >= checker.calls
            if checker._active or (recheck and state["rechecked"]):
                return compiled(*args)   # past its checks: nothing read, each call
            versions = _param_versions(gm, args)
            # checked again, once, at the next call of a graph that updated its own inputs in
            # place (a history buffer, a cache, running statistics): its first call started
            # from the program's initial state (often zeros), which hides what compiled code
            # gets wrong once the state holds values (pytorch#198031: a dropped clone)
            if recheck and versions == state["versions"] and not state["stateful"]:
                return compiled(*args)
            # checked again, once, at the first call after the program changed a parameter in
            # place (a weight update, a hot swap): freezing folds parameters into the compiled
            # graph as constants, and compiled code that ignores the update differs only now
            state["rechecked"] = state["rechecked"] or recheck
            state["calls"] += 1
            changed = _changed_params(gm, state["versions"], versions) if recheck else []
            state["versions"] = versions
            before = _clone(list(args))
            rng = torch.random.get_rng_state()
            out = compiled(*args)
            after_rng = torch.random.get_rng_state()
            checker._active = True
            try:
                if checker.grads and not recheck:
                    checker.watch(gm, list(args), before, out, rng, cid, compiler)
                check = check_graph(gm, out, before, rng, checker.tol, cid,
                                    args_after=list(args))
                for o in check.outputs if recheck and changed else ():
                    o.detail["after_param_update"] = [n.removeprefix("L__self___")
                                                      for n in changed]
                    o.detail["freezing"] = _freezing()
                # what differs after an update starts at the first op reading an updated
                # parameter: that is the line, not a search for a wrong kernel
                stale = _first_reader(gm, changed) if recheck and not check.ok else None
                if stale is not None:
                    check.divergent_node = stale
                elif not check.ok and checker.localise and check.divergent_node is None:
                    try:
                        with checker.quiet():
                            check.divergent_node = localise(gm, compiler, before, rng,
                                                            checker.tol,
                                                            fused=wrong_code(check))
                    except Exception as exc:  # noqa: BLE001
                        check.error = None
                        check.divergent_node = {"error": f"{type(exc).__name__}: {exc}"[:300]}
                if checker.localise and not check.ok and stale is None:
                    # a custom op that broke its declaration: whatever the outputs' verdict
                    # (a fake's wrong dtype reads as dtype promotion, probes27)
                    blamed = (_broken_contract(gm, before, rng, mutation=True)
                              if wrong_code(check) else None) or \
                        _broken_contract(gm, before, rng, mutation=False)
                    if blamed is not None:
                        check.divergent_node = blamed
                if checker.localise and stale is None:
                    point_at_an_op(check, gm, before, rng, checker.tol)
            except Exception as exc:  # noqa: BLE001 - a checker fault is not the user's
                check = GraphCheck(cid, [], error=f"{type(exc).__name__}: {exc}"[:500])
            finally:
                checker._active = False
                torch.random.set_rng_state(after_rng)
            state["stateful"] = check.updated_inputs and not recheck and check.ok
            # (a graph whose outputs differ from eager's with a verdict that excuses it,
            # compiled nearer float64 than eager, explains the function's difference too:
            # not a wrong trace; probes26 acc_bf16_weights_upcast)
            state["bad"] = state["bad"] or not check.ok or any(
                o.detail.get("verdict") for o in check.outputs)
            checker.sink(check)
            return out

        checked._compdiag_accuracy = True  # type: ignore[attr-defined]
        return checked

    def watch(self, gm: torch.fx.GraphModule, args: list[Any], before: list[Any], out: Any,
              rng: torch.Tensor, cid: str | None, compiler: Callable[..., Any]) -> None:
        """Check the gradients the program's own backward computes through this call
        (capture/grad_accuracy.py); the sink hears of them when that backward has run."""
        from compdiag.capture.grad_accuracy import Modes, compare_grads, localise_backward, \
            watch_backward

        checker = self

        def on_grads(watch: Any, grads: list[Any]) -> None:
            if checker._active:
                return
            checker._active = True
            rng_now = torch.random.get_rng_state()
            try:
                check = compare_grads(watch, grads, checker.tol, cid)
                if not check.ok and checker.localise:
                    try:
                        with checker.quiet():
                            check.divergent_node = localise_backward(watch, compiler,
                                                                     checker.tol)
                    except Exception as exc:  # noqa: BLE001
                        check.divergent_node = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            except Exception as exc:  # noqa: BLE001 - a checker fault is not the user's
                check = GraphCheck(cid, [], error=f"backward: {type(exc).__name__}: {exc}"[:500])
            finally:
                checker._active = False
                torch.random.set_rng_state(rng_now)
            checker.sink(check)

        try:
            watch_backward(gm, args, before, out, rng, Modes.now(), on_grads)
        except Exception:  # noqa: BLE001, S110 - fail open: the forward check still runs
            pass
