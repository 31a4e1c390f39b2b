"""Where a graph's compiled result first diverges from eager: the first prefix of the graph
whose compiled value differs (a bisection over its ops), the fused group that caused it, and
the op and user line an accuracy diagnosis points at. Split from capture/accuracy.py, which
calls it once a check has found a difference."""

from __future__ import annotations

import contextlib
import operator
from typing import Any, Callable

import torch
import torch.fx
from torch.utils import _pytree as pytree

from compdiag.capture.accuracy_compare import (
    GraphCheck, Tolerance, _clone, _described, _leaves, _op_name, _preserved_state, _to64,
    compare_outputs, fp64_errors, user_line)
from compdiag.capture.accuracy_replay import _eager, paired_values
from compdiag.capture.mutated_args import dropped_copy, written


# -- localisation -----------------------------------------------------------------------------
def _prefix_graph(gm: torch.fx.GraphModule, upto: torch.fx.Node,
                  frontier: bool = False) -> torch.fx.GraphModule:
    """The graph up to `upto`, returning its value (for an op that returns nothing and writes
    its inputs in place, the inputs it wrote), and every graph input written so far: once
    compiled code has written an input wrongly, every later prefix shows it, so the search
    for the first divergent prefix stays monotone (a later op reading an untouched view of
    that input would hide it). `frontier`: also every tensor the prefix computed that nothing
    in it reads, so a value that diverged earlier and that no later op of the prefix reads
    still shows (a bisection over prefixes is right only when its predicate is monotone)."""
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    inputs: list[torch.fx.Node] = []
    kept: list[torch.fx.Node] = []
    for node in gm.graph.nodes:
        if node.op == "output":
            continue
        env[node] = graph.node_copy(node, lambda n: env[n])
        inputs += [i for i in map(_input_of, written(node)) if i is not None]
        kept.append(node)
        if node is upto:
            break
    value = upto.meta.get("example_value", upto.meta.get("val"))
    own = [upto] if isinstance(value, torch.Tensor) else written(upto)
    if frontier:
        inside = set(kept)
        own += [n for n in kept if n.op in ("call_function", "call_method", "call_module")
                and isinstance(n.meta.get("example_value", n.meta.get("val")), torch.Tensor)
                and not any(u in inside for u in n.users)]
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
    value: where the conditioning bites. One eager run in each dtype, in lockstep (no
    compiles)."""
    nodes = _computational(gm)
    if not nodes:
        return None

    overflowed: set[int] = set()

    def far(lo: Any, hi: Any) -> bool | None:
        """Whether eager's value LO is beyond the tolerance from its float64 value HI (None:
        overflowed, eager's inf where float64 is finite)."""
        for a, b in zip(_leaves(lo), _leaves(hi)):
            if isinstance(a, torch.Tensor) and a.is_floating_point():
                # eager's inf where float64 is finite: the low precision overflowed here
                # (probes33f fp16_rmsnorm_serve: `h.pow(2)` past float16's 65504)
                if isinstance(b, torch.Tensor) and b.shape == a.shape and bool(
                        (torch.isinf(a) & torch.isfinite(b.double())).any()):
                    return None
                errs = fp64_errors(a, a, b)
                if errs and errs["eager_rel"] > tol.tol_for(a.dtype):
                    return True
        return False

    found = None
    index = {n: k for k, n in enumerate(nodes)}
    try:
        with _preserved_state(gm), contextlib.closing(paired_values(gm, args, rng)) as pairs:
            for node, lo, hi in pairs:
                verdict = far(lo, hi) if node in index else False
                if verdict is None:
                    overflowed.add(index[node])
                if verdict is not False:
                    found = (index[node],)
                    break
    except Exception:  # noqa: BLE001 - fail open: no conditioning node, the check's own stands
        return None
    if found is None:
        return None
    node = nodes[found[0]]
    source = _amplified_input(node) if found[0] not in overflowed else None
    if source is not None:  # where the precision was lost, not where it shows
        return _described(source, localised=True, by="float64", amplified_by=_op_name(node))
    return _described(node, localised=True, by="float64",
                      **({"overflow": True} if found[0] in overflowed else {}))


# Ops whose output error is their input's absolute error (a periodic function of a large
# argument): one rounding of the argument, within the tolerance where it was made, is beyond
# it after them (probes38a temb_fp16_sinusoidal: `args = t[:, None] * freqs` rounded to
# float16 at values up to 999, spacing 0.5, then cos/sin; the line was the cos's).
AMPLIFIERS = frozenset({"cos", "sin", "tan"})


def _amplified_input(node: torch.fx.Node) -> torch.fx.Node | None:
    """The computed input of a periodic op whose eager value left float64 first: an op of one
    tensor input can add no more than its own rounding, under any tolerance, so the error came
    in with the input, rounded where another line computed it."""
    if not set(str(_op_name(node)).split(".")) & AMPLIFIERS:
        return None
    ins = [a for a in node.args if isinstance(a, torch.fx.Node)]
    if len(ins) != 1 or ins[0].op not in ("call_function", "call_method"):
        return None
    here, there = user_line(node), user_line(ins[0])
    return ins[0] if there and (not here or (here["filename"], here["lineno"]) != (
        there["filename"], there["lineno"])) else None


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
    numbers, integers or floats, with no verdict that explains them away). An inf or NaN only
    the compiled side has, where eager is finite like the float64 reference, is wrong code
    too (probes36f survival_expm1_loglik: Inductor's `expm1` of -2e-9 gave 0, fused into the
    `log` that made it -inf; the log, the first output that differs, was blamed)."""
    bad = [o for o in check.outputs if not o.ok]
    detail = (bad[0].detail or {}) if bad else {}
    return bool(bad) and (detail.get("verdict") not in NOT_WRONG_CODE or (
        detail.get("verdict") == "inf_nan" and detail.get("matches_fp64") == "eager"))


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
        gm, _prefix_graph(gm, nodes[k], frontier=True), args, compiler, rng, tol))
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
    anything else the node computing the output when localisation found none; before either,
    an indexed write whose indices repeat, which no backend must order as eager does."""
    noted = [(i, o) for i, o in enumerate(check.outputs) if not o.ok or o.detail.get("verdict")]
    if not noted:
        return
    if not check.ok:
        try:
            dup = duplicate_write(gm, args, rng)
        except Exception:  # noqa: BLE001 - fail open: the usual search below
            dup = None
        if dup is not None:
            check.divergent_node = dup
            return
    node = check.divergent_node if isinstance(check.divergent_node, dict) else None
    i, o = noted[0]
    if o.detail.get("verdict") in ("ill_conditioned", "compiled_more_accurate"):
        # where eager leaves float64: the op the low precision bites at
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
    if node and node.get("node") and not check.ok:
        node = _with_narrowing(node, gm, args, rng)
    check.divergent_node = node


def _with_narrowing(node: dict[str, Any], gm: torch.fx.GraphModule, args: list[Any],
                    rng: torch.Tensor) -> dict[str, Any]:
    """NODE with `narrowing` when it converts floats out of an integer dtype's range
    (capture/narrowing.py); one eager run of GM, its state kept."""
    from compdiag.capture.narrowing import narrowing

    def values() -> dict[str, Any]:
        with _preserved_state(gm):
            return _values(gm, args, rng)
    try:
        found = narrowing(gm, node["node"], values)
    except Exception:  # noqa: BLE001 - fail open: the node as found stands
        return node
    return {**node, "narrowing": found} if found else node


# Indexed writes whose result, where an index repeats, depends on the order of the writes:
# torch leaves that order undefined (`index_put_` without accumulate, `x[idx] = v`, `scatter_`
# without reduce), so eager and compiled code may keep different rows (probes38g
# tgn_memory_last_write: `last[dst] = m` with repeated destinations, said as ill-conditioning
# at the next line).
_INDEXED_WRITES = {"setitem", "index_put_", "index_put", "scatter_", "scatter",
                   "index_copy_", "index_copy"}


def duplicate_write(gm: torch.fx.GraphModule, args: list[Any], rng: torch.Tensor
                    ) -> dict[str, Any] | None:
    """The first indexed write of a tensor's rows (not a constant) at indices that repeat in
    this call, described with `duplicate_writes` (how many indices repeat); None when none."""
    cands = [(n, rows) for n in gm.graph.nodes if (rows := _written_rows(n)) is not None]
    if not cands:
        return None
    with _preserved_state(gm):
        values = _values(gm, args, rng)
    for n, (index, value) in cands:
        idx = values.get(index.name)
        if not isinstance(idx, torch.Tensor) or idx.is_floating_point() or idx.dtype == \
                torch.bool or idx.dim() != 1 or not isinstance(values.get(value.name),
                                                              torch.Tensor):
            continue
        repeats = idx.numel() - torch.unique(idx).numel()
        if repeats > 0 and _rows_differ(idx, values[value.name]):
            return _described(n, localised=True, duplicate_writes=int(repeats))
    return None


def _rows_differ(idx: torch.Tensor, rows: torch.Tensor) -> bool:
    """Whether two rows written to one index differ (rows aligned with the indices; the same
    row written twice leaves nothing undefined)."""
    if rows.dim() == 0 or rows.shape[0] != idx.numel():
        return False
    _, inv = torch.unique(idx, return_inverse=True)
    flat = rows.reshape(idx.numel(), -1).double()
    k = int(inv.max()) + 1
    at = inv[:, None].expand_as(flat)
    hi = flat.new_full((k, flat.shape[1]), float("-inf")).scatter_reduce(0, at, flat, "amax")
    lo = flat.new_full((k, flat.shape[1]), float("inf")).scatter_reduce(0, at, flat, "amin")
    return bool((hi != lo).any())


def _written_rows(n: torch.fx.Node) -> tuple[torch.fx.Node, torch.fx.Node] | None:
    """(the index node, the value node) of an indexed write of a computed tensor: `x[idx] = v`
    (setitem), `x.index_put_((idx,), v)`, `x.scatter_(dim, idx, v)`, `x.index_copy_(dim,
    idx, v)`; None for another form, a constant value, or a tuple of several indices."""
    name = str(_op_name(n)).split(".")[-1]
    if n.op not in ("call_function", "call_method") or name not in _INDEXED_WRITES:
        return None
    a = list(n.args)
    if name == "setitem" and len(a) == 3:
        index, value = a[1], a[2]
    elif name.startswith("index_put") and len(a) >= 3 and isinstance(a[1], (tuple, list)) \
            and len(a[1]) == 1 and not (len(a) > 3 and a[3]) and not n.kwargs.get("accumulate"):
        index, value = a[1][0], a[2]
    elif name.startswith(("scatter", "index_copy")) and len(a) >= 4 and "reduce" not in n.kwargs:
        index, value = a[2], a[3]
    else:
        return None
    if isinstance(index, torch.fx.Node) and isinstance(value, torch.fx.Node):
        return index, value
    return None
