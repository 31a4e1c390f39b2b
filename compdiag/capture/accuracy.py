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
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.fx
from torch.utils import _pytree as pytree

from compdiag.formats.tolerances import default_tol, user_tol
from compdiag.formats.user_code import frames_in, is_user_file


@dataclass
class OutputCheck:
    output: str
    ok: bool
    max_abs: float | None
    max_rel: float | None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class GraphCheck:
    compile_id: str | None
    outputs: list[OutputCheck]
    nondeterministic: bool = False
    divergent_node: dict[str, Any] | None = None
    error: str | None = None
    inputs: list[str] = field(default_factory=list)  # what was compared on (describe_inputs)

    @property
    def ok(self) -> bool:
        return self.error is None and all(o.ok for o in self.outputs)


@dataclass
class Tolerance:
    rtol: float | None = None
    atol: float | None = None

    def tol_for(self, dtype: torch.dtype) -> float:
        """same()'s `tol`: the user's --rtol/--atol when given, else the dtype's default."""
        tol = user_tol(self.rtol, self.atol)
        return default_tol(dtype) if tol is None else tol


def _clone(value: Any) -> Any:
    return pytree.tree_map(lambda t: t.detach().clone() if isinstance(t, torch.Tensor) else t,
                           value)


def _to64(value: Any) -> Any:
    def cast(t: Any) -> Any:
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            return t.detach().to(torch.float64)
        return t.detach().clone() if isinstance(t, torch.Tensor) else t
    return pytree.tree_map(cast, value)


def _leaves(value: Any) -> list[Any]:
    return pytree.tree_leaves(value)


def describe_inputs(args: list[Any], limit: int = 8) -> list[str]:
    """The program's own inputs a check ran on, in words: dtype, shape, and the inf/nan they
    hold (the values a freshly drawn input would not have)."""
    out = []
    for a in args:
        if len(out) == limit:
            out.append(f"... {len(args) - limit} more")
            break
        if not isinstance(a, torch.Tensor):
            out.append(repr(a)[:40])
            continue
        text = f"{str(a.dtype).replace('torch.', '')}{list(a.shape)}"
        if a.is_floating_point() and a.numel():
            nan, inf = int(torch.isnan(a).sum()), int(torch.isinf(a).sum())
            extra = [f"{nan} nan"] * bool(nan) + [f"{inf} inf"] * bool(inf)
            if extra:
                text += f" ({', '.join(extra)})"
        out.append(text)
    return out


# -- verdicts against the float64 reference (torchbench's same(): the RMSE of each side against
# fp64) -----------------------------------------------------------------------------------------
# Eager and compiled both further from fp64 than the tolerance, compiled within this factor of
# eager's error: the computation amplifies rounding (ill-conditioned), whichever order the
# arithmetic runs in; the compiler is allowed to reorder it.
ILL_CONDITIONED_RATIO = 10.0
VERDICTS = ("miscompile", "ill_conditioned", "dtype_promotion", "inf_nan",
            "compiled_more_accurate", "eager_rejects")


def fp64_errors(ref: torch.Tensor, res: torch.Tensor, ref64: Any) -> dict[str, float] | None:
    """RMSE of eager and of compiled against the float64 reference (torch's own `rmse`), on the
    positions all three hold finite values, absolute and relative to the reference's RMS."""
    from torch._dynamo.utils import rmse

    if not isinstance(ref64, torch.Tensor) or ref64.shape != res.shape or \
            not (ref64.is_floating_point() and ref64.dtype == torch.float64):
        return None
    f64, r64, c64 = ref64.detach().double(), ref.detach().double(), res.detach().double()
    mask = torch.isfinite(f64) & torch.isfinite(r64) & torch.isfinite(c64)
    if not bool(mask.any()):
        return None
    f, r, c = f64[mask], r64[mask], c64[mask]
    scale = float(torch.sqrt(torch.mean(f * f))) or 1e-300
    e, k = float(rmse(f, r)), float(rmse(f, c))
    return {"eager_rmse": e, "compiled_rmse": k, "scale": scale, "eager_rel": e / scale,
            "compiled_rel": k / scale}


def numeric_verdict(ok: bool, close: bool, errs: dict[str, float] | None, tol: float,
                    dtype: torch.dtype) -> dict[str, Any]:
    """What a numeric difference between eager and compiled is, judged against fp64."""
    if errs is None:
        return {}  # no float64 reference to judge by: the difference is all there is
    e, k = errs["eager_rel"], errs["compiled_rel"]
    out: dict[str, Any] = {"fp64": {key: float(f"{v:.4g}") for key, v in errs.items()}}
    if close:  # within the tolerance: how much rounding the computation amplifies, no verdict
        eps = torch.finfo(dtype).eps if dtype.is_floating_point else 0.0
        if eps and (e or k):
            out["amplification"] = float(f"{max(e, k) / eps:.3g}")
        return out
    if e > tol and k <= ILL_CONDITIONED_RATIO * e:
        eps = torch.finfo(dtype).eps if dtype.is_floating_point else 0.0
        out["verdict"] = "ill_conditioned"
        if eps:
            out["amplification"] = float(f"{e / eps:.3g}")
    elif not ok:
        out["verdict"] = "miscompile"
    elif k < e:
        out["verdict"] = "compiled_more_accurate"
    return out


def compare_output(name: str, ref: Any, res: Any, ref64: Any, tol: Tolerance) -> OutputCheck:
    """One output: eager `ref` vs compiled `res`, judged with the fp64 reference."""
    from torch._dynamo.utils import same

    if not isinstance(ref, torch.Tensor) or not isinstance(res, torch.Tensor):
        equal = bool(ref == res) if not isinstance(ref, torch.Tensor) else False
        return OutputCheck(name, equal, None, None, {"kind": "non-tensor", "eager": repr(ref)[:200],
                                                    "compiled": repr(res)[:200]})
    detail: dict[str, Any] = {"dtype": str(res.dtype), "shape": list(res.shape)}
    if ref.shape != res.shape:
        detail["reason"] = f"shape mismatch: eager {list(ref.shape)} vs compiled {list(res.shape)}"
        return OutputCheck(name, False, None, None, detail)
    if ref.dtype != res.dtype:
        detail.update(reason=f"dtype mismatch: eager {ref.dtype} vs compiled {res.dtype}",
                      verdict="dtype_promotion", eager_dtype=str(ref.dtype),
                      compiled_dtype=str(res.dtype))
        try:
            wide = torch.promote_types(ref.dtype, res.dtype)
            detail["values_equal"] = bool(torch.allclose(
                ref.detach().to(wide), res.detach().to(wide), equal_nan=True,
                rtol=tol.tol_for(ref.dtype), atol=tol.tol_for(ref.dtype))) \
                if wide.is_floating_point else bool(torch.equal(ref.to(wide), res.to(wide)))
        except Exception:  # noqa: BLE001 - the verdict stands without it
            pass
        return OutputCheck(name, False, None, None, detail)
    r, c = ref.detach(), res.detach()
    if not r.is_floating_point() and not r.is_complex():
        equal = bool(torch.equal(r, c))
        max_abs = float((r.long() - c.long()).abs().max()) if r.numel() and r.dtype != torch.bool \
            else (0.0 if equal else 1.0)
        if not equal:
            detail["reason"] = "integer/bool values differ"
        return OutputCheck(name, equal, max_abs, None, detail)
    r64, c64 = r.double(), c.double()
    finite = torch.isfinite(r64) & torch.isfinite(c64)
    diff = (r64 - c64).abs()
    max_abs = float(diff[finite].max()) if bool(finite.any()) else 0.0
    denom = r64.abs().clamp_min(1e-12)
    max_rel = float((diff / denom)[finite].max()) if bool(finite.any()) else 0.0
    nan_mismatch = bool((torch.isnan(r64) != torch.isnan(c64)).any())
    inf_mismatch = bool((torch.isinf(r64) != torch.isinf(c64)).any())
    detail.update(nan_mismatch=nan_mismatch, inf_mismatch=inf_mismatch)
    t = tol.tol_for(res.dtype)
    detail["tol"] = t
    ok = bool(same(r, c, fp64_ref=ref64.detach() if isinstance(ref64, torch.Tensor) else None,
                   tol=t, equal_nan=True, log_error=lambda *a, **k: None))
    if tol.rtol is not None or tol.atol is not None:
        ok = ok or bool(torch.allclose(c64, r64, rtol=tol.rtol or 0.0, atol=tol.atol or 0.0,
                                       equal_nan=True))
    close = bool(torch.allclose(r64[finite], c64[finite], rtol=t, atol=t)) \
        if bool(finite.any()) else True
    errs = fp64_errors(r, c, ref64)
    if nan_mismatch or inf_mismatch:
        ok = False
        which = "NaN" if nan_mismatch else "Inf"
        detail["reason"] = f"{which} pattern differs between eager and compiled"
        detail["nonfinite_positions"] = int(((torch.isnan(r64) != torch.isnan(c64)) |
                                             (torch.isinf(r64) != torch.isinf(c64))).sum())
        if isinstance(ref64, torch.Tensor):
            f64 = torch.isfinite(ref64.double())
            detail["fp64_nonfinite"] = int((~f64).sum())
            if bool((f64 & torch.isfinite(c64)).all()) and not bool(torch.isfinite(r64).all()):
                detail["reason"] += (f" (eager overflows in {res.dtype}; compiled stays finite "
                                     "like the float64 reference)")
                detail["matches_fp64"] = "compiled"
            elif bool((f64 & torch.isfinite(r64)).all()) and \
                    not bool(torch.isfinite(c64).all()):
                detail["matches_fp64"] = "eager"
            elif bool(((~f64) == ~torch.isfinite(c64)).all()):
                detail["matches_fp64"] = "compiled"
            elif bool(((~f64) == ~torch.isfinite(r64)).all()):
                detail["matches_fp64"] = "eager"
        if close:
            detail["verdict"] = "inf_nan"
        else:
            detail.update(numeric_verdict(False, False, errs, t, res.dtype))
    else:
        if not ok:
            detail["reason"] = (f"max abs error {max_abs:.3g}, max rel error {max_rel:.3g} "
                                f"beyond tolerance {t:g} (torch._dynamo.utils.same rules)")
        detail.update(numeric_verdict(ok, close, errs, t, res.dtype))
    if detail.get("verdict") is None:
        detail.pop("verdict", None)
    return OutputCheck(name, ok, _finite(max_abs), _finite(max_rel), detail)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def compare_outputs(ref: Any, res: Any, ref64: Any, tol: Tolerance) -> list[OutputCheck]:
    refs, ress, r64s = _leaves(ref), _leaves(res), _leaves(ref64)
    if len(refs) != len(ress):
        return [OutputCheck("outputs", False, None, None,
                            {"reason": f"{len(refs)} eager outputs vs {len(ress)} compiled"})]
    return [compare_output(f"output {i}", a, b, r64s[i] if i < len(r64s) else None, tol)
            for i, (a, b) in enumerate(zip(refs, ress))]


@contextlib.contextmanager
def _preserved_state(gm: torch.nn.Module):
    """RNG streams and module buffers as they were: the replays must leave no trace."""
    cpu = torch.random.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    buffers = {k: b.detach().clone() for k, b in gm.named_buffers()}
    try:
        yield
    finally:
        torch.random.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)
        with torch.no_grad():
            for k, b in gm.named_buffers():
                if k in buffers:
                    b.copy_(buffers[k])


def _gm64(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    g = copy.deepcopy(gm)
    return g.to(torch.float64)


def _eager(gm: Callable[..., Any], args: list[Any], rng: torch.Tensor,
           exact: bool = False) -> Any:
    """Eager on clones of `args`, under the program's modes (the call's own: this runs inside
    it); `exact`: with autocast off, for the float64 reference autocast would round down."""
    torch.random.set_rng_state(rng)
    with torch.no_grad(), _no_autocast() if exact else contextlib.nullcontext():
        return gm(*_clone(args))


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
                rng_before: torch.Tensor, tol: Tolerance, compile_id: str | None) -> GraphCheck:
    with _preserved_state(gm):
        try:
            eager1 = _eager(gm, args_before, rng_before)
        except Exception as exc:  # noqa: BLE001 - compiled returned a value: a verdict
            return eager_rejects(gm, args_before, rng_before, exc, compile_id)
        eager2 = _eager(gm, args_before, rng_before)
        try:
            ref64 = _eager(_gm64(gm), _to64(args_before), rng_before, exact=True)
        except Exception:  # noqa: BLE001 - some graphs have no float64 kernels
            ref64 = None
    again = compare_outputs(eager1, eager2, eager1, Tolerance(rtol=0.0, atol=0.0))
    nondeterministic = not all(o.ok for o in again)
    outs = compare_outputs(eager1, compiled_out,
                           ref64 if ref64 is not None else eager1, tol)
    if nondeterministic:
        for o in outs:
            o.detail["eager_nondeterministic"] = True
            if not o.ok:
                o.detail["reason"] = ("eager itself is non-deterministic on this graph (two eager "
                                      "runs disagree); not attributed to the compiler")
                o.ok = True
    return GraphCheck(compile_id, outs, nondeterministic=nondeterministic,
                      inputs=describe_inputs(args_before))


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
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    for node in gm.graph.nodes:
        if node.op == "output":
            continue
        env[node] = graph.node_copy(node, lambda n: env[n])
        if node is upto:
            break
    graph.output((env[upto],))
    sub = torch.fx.GraphModule(gm, graph)
    sub.graph.eliminate_dead_code()
    sub.recompile()
    return sub


def _computational(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    return [n for n in gm.graph.nodes
            if n.op in ("call_function", "call_method", "call_module")
            and isinstance(n.meta.get("example_value", n.meta.get("val")), torch.Tensor)]


def user_line(node: torch.fx.Node) -> dict[str, Any] | None:
    """The innermost user frame of the node's stack trace (an op inside torch.distributions
    or nn.functional is reached from the user's line), else its innermost frame."""
    frames = frames_in(node.meta.get("stack_trace") or "")
    mine = [f for f in frames if is_user_file(f["filename"])]
    f = (mine or frames or [None])[-1]
    if f is None:
        return None
    return {"filename": f["filename"], "lineno": f["lineno"], "line": f["line"]}


def _op_name(node: torch.fx.Node) -> str:
    return node.target if isinstance(node.target, str) else getattr(
        node.target, "__name__", str(node.target))


def _described(node: torch.fx.Node, **more: Any) -> dict[str, Any]:
    return {"node": node.name, "op": str(_op_name(node)), "user_frame": user_line(node), **more}


def output_node(gm: torch.fx.GraphModule, index: int) -> dict[str, Any] | None:
    """The node computing output `index` (the last with a user line before it): where a
    divergence shows when no prefix of the graph could be compared on its own."""
    out = next((n for n in gm.graph.nodes if n.op == "output"), None)
    if out is None:
        return None
    leaves = [a for a in pytree.tree_leaves(out.args) if isinstance(a, torch.fx.Node)]
    node = leaves[index] if 0 <= index < len(leaves) else None
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


def localise(gm: torch.fx.GraphModule, compiler: Callable[..., Any], args: list[Any],
             rng: torch.Tensor, tol: Tolerance) -> dict[str, Any] | None:
    """The first node whose compiled value diverges from eager: binary search over graph
    prefixes (each prefix compiled on its own), about log2(nodes) compiles."""
    nodes = _computational(gm)
    if not nodes:
        return None

    def diverges(k: int) -> bool:
        sub = _prefix_graph(gm, nodes[k])
        with _preserved_state(gm):
            eager = _eager(sub, args, rng)
            compiled = compiler(sub, _clone(args))
            torch.random.set_rng_state(rng)
            with torch.no_grad():
                res = compiled(*_clone(args))
        checks = compare_outputs(eager, res, eager, tol)
        return not all(c.ok for c in checks)

    found = first_true(len(nodes), diverges)
    return None if found is None else _described(nodes[found[0]], compiles=found[1])


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

    def install(self) -> Callable[[], None]:
        from compdiag.capture.backend_hook import hook_backend_call

        return hook_backend_call(
            lambda: self._active,
            lambda keep, compiled, compiler: self.wrap(keep, compiled, self.compile_id(),
                                                       compiler))

    def wrap(self, gm: torch.fx.GraphModule, compiled: Callable[..., Any], cid: str | None,
             compiler: Callable[..., Any]) -> Callable[..., Any]:
        checker = self
        state = {"calls": 0}

        def checked(*args: Any) -> Any:
            if checker._active or state["calls"] >= checker.calls:
                return compiled(*args)
            state["calls"] += 1
            before = _clone(list(args))
            rng = torch.random.get_rng_state()
            out = compiled(*args)
            after_rng = torch.random.get_rng_state()
            checker._active = True
            try:
                if checker.grads:
                    checker.watch(gm, list(args), before, out, rng, cid, compiler)
                check = check_graph(gm, out, before, rng, checker.tol, cid)
                if not check.ok and checker.localise and check.divergent_node is None:
                    try:
                        with checker.quiet():
                            check.divergent_node = localise(gm, compiler, before, rng,
                                                            checker.tol)
                    except Exception as exc:  # noqa: BLE001
                        check.error = None
                        check.divergent_node = {"error": f"{type(exc).__name__}: {exc}"[:300]}
                if checker.localise:
                    point_at_an_op(check, gm, before, rng, checker.tol)
            except Exception as exc:  # noqa: BLE001 - a checker fault is not the user's
                check = GraphCheck(cid, [], error=f"{type(exc).__name__}: {exc}"[:500])
            finally:
                checker._active = False
                torch.random.set_rng_state(after_rng)
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
