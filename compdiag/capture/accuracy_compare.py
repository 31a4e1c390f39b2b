"""What an accuracy check compares and how: one output against eager and its float64
reference (torch._dynamo.utils.same's rules plus the fp64 verdicts), the check's result types,
and the node helpers that name an op's user line. Shared by the forward check
(capture/accuracy.py) and the gradient check (capture/grad_accuracy.py), which import it and
not each other."""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.fx
from torch.utils import _pytree as pytree

from compdiag.formats.tolerances import default_tol, user_tol
from compdiag.formats.user_code import frames_in, is_user_file
from compdiag.store.schema import ALIAS_WORDS

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
    # the graph updated some of its inputs in place: the state the next call starts from is
    # the graph's own (not stored; the checker re-checks such a graph once, capture/accuracy.py)
    updated_inputs: bool = False

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


def _storage_key(t: torch.Tensor) -> tuple[Any, ...] | None:
    """What aliased tensors share (their storage), for a plain strided tensor; None else."""
    try:
        if t.layout != torch.strided or t.is_nested or type(t) not in (
                torch.Tensor, torch.nn.Parameter) or t.device.type == "meta":
            return None
        st = t.untyped_storage()
        return (str(t.device), st.data_ptr(), t.dtype) if st.nbytes() else None
    except Exception:  # noqa: BLE001 - a tensor without a storage: copied alone
        return None


def _copies(value: Any, copy: Callable[[torch.Tensor], torch.Tensor],
            cast: torch.dtype | None = None) -> Any:
    """`copy` of each tensor in `value`, except that tensors which alias one storage (`buf`
    and `buf[1:]`) become views of one copy of it, with their offsets and strides: a graph
    that writes one of them in place and reads the other does in the replay what it did in
    the program (probes41b aot_aliased_window_peek: separate clones made eager's replay
    read the unwritten window, a false mismatch, and bisect blamed eager). `cast`: the copy
    of a floating storage in that dtype (the float64 reference)."""
    leaves = [t for t in pytree.tree_leaves(value) if isinstance(t, torch.Tensor)]
    keys = [_storage_key(t) for t in leaves]
    key_of = {id(t): k for t, k in zip(leaves, keys)}
    shared = {k for k, n in Counter(keys).items() if k is not None and n > 1}
    for k in list(shared):  # a leaf's grad is `copy`'s to keep; a big storage stays uncopied
        group = [t for t, key in zip(leaves, keys) if key == k]
        views = sum(t.numel() * t.element_size() for t in group)
        if any(t.requires_grad or t.grad is not None for t in group) or \
                group[0].untyped_storage().nbytes() > 4 * views:
            shared.discard(k)
    if not shared:
        return pytree.tree_map(lambda t: copy(t) if isinstance(t, torch.Tensor) else t, value)
    bases: dict[Any, torch.Tensor] = {}

    def one(t: Any) -> Any:
        if not isinstance(t, torch.Tensor):
            return t
        key = key_of.get(id(t))
        if key not in shared:
            return copy(t)
        base = bases.get(key)
        if base is None:
            st = t.untyped_storage()
            whole = torch.empty(0, dtype=t.dtype, device=t.device).set_(
                st, 0, (st.nbytes() // t.element_size(),), (1,)).detach()
            base = bases[key] = (whole.to(cast) if cast is not None and
                                 whole.is_floating_point() else whole.clone())
        return base.as_strided(t.size(), t.stride(), t.storage_offset())
    return pytree.tree_map(one, value)


def _clone(value: Any) -> Any:
    return _copies(value, lambda t: t.detach().clone())


def _clone_with_grads(value: Any) -> Any:
    """Clones that keep what a function may read of a leaf besides its values: its `.grad`
    and `requires_grad` (probes35a accum_clip_step_ok: a compiled update given the model's
    parameters reads `p.grad`; the replay on plain clones raised AttributeError on None, a
    false "compiled accepted what eager rejects")."""
    def copy(t: torch.Tensor) -> torch.Tensor:
        c = t.detach().clone()
        if t.is_leaf and t.requires_grad:
            c.requires_grad_(True)
        if t.grad is not None:
            c.grad = t.grad.detach().clone()
        return c
    return _copies(value, copy)


def _to64(value: Any) -> Any:
    def cast(t: torch.Tensor) -> torch.Tensor:
        if t.is_floating_point():
            return t.detach().to(torch.float64)
        return t.detach().clone()
    return _copies(value, cast, cast=torch.float64)


def _leaves(value: Any) -> list[Any]:
    return pytree.tree_leaves(value)


def describe_inputs(args: list[Any], limit: int = 8) -> list[str]:
    """The program's own inputs a check ran on, in words: dtype, shape, the inf/nan they
    hold (the values a freshly drawn input would not have), and an input that shares another
    one's storage (`buf` and `buf[1:]`: AOTAutograd rebuilds such inputs from one base)."""
    out = []
    owners: dict[Any, int] = {}
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
        key = _storage_key(a)
        if key is not None and key in owners:
            text += f" ({ALIAS_WORDS} {owners[key]})"
        elif key is not None:
            owners[key] = len(out)
        out.append(text)
    return out



# -- verdicts against the float64 reference (torchbench's same(): the RMSE of each side against
# fp64) -----------------------------------------------------------------------------------------
# Eager and compiled both further from fp64 than the tolerance, compiled within this factor of
# eager's error: the computation amplifies rounding (ill-conditioned), whichever order the
# arithmetic runs in; the compiler is allowed to reorder it.
ILL_CONDITIONED_RATIO = 10.0
# Within the tolerance, eager and compiled that differ while the computation amplifies float
# rounding this much (the bar of analyses/accuracy.py's ILL_CONDITIONED_AMPLIFICATION) are an
# ill-conditioned verdict too (issue 29 §4): the run is not "no problems found".
AMPLIFIED = 100.0
VERDICTS = ("miscompile", "ill_conditioned", "dtype_promotion", "inf_nan",
            "compiled_more_accurate", "eager_rejects", "traced_wrong", "traced_accepts",
            "changed_after_compile", "compiled_path", "dropped_rounding", "stale_number",
            "lost_side_effect", "traced_other_path")


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
    scale = float(torch.sqrt(torch.mean(f * f)))
    sides = max(float(torch.sqrt(torch.mean(r * r))), float(torch.sqrt(torch.mean(c * c))))
    if scale <= 1e-30 * sides:
        # a reference of zeros (an input written in place, zero before its first write):
        # relative to the results themselves, never to 1e-300 (probes40b
        # jacobi_snapshot_inplace: "relative RMSE 2.52e+296")
        scale = sides
    scale = scale or 1e-300
    e, k = float(rmse(f, r)), float(rmse(f, c))
    return {"eager_rmse": e, "compiled_rmse": k, "scale": scale, "eager_rel": e / scale,
            "compiled_rel": k / scale}


def _autocast_eps() -> float:
    """The rounding step of the lowest precision autocast computes in now (0: autocast off)."""
    steps = []
    for device in ("cpu", "cuda"):
        try:
            if torch.is_autocast_enabled(device):
                steps.append(torch.finfo(torch.get_autocast_dtype(device)).eps)
        except (TypeError, RuntimeError, AttributeError):  # another torch's signature
            continue
    return max(steps, default=0.0)


def numeric_verdict(ok: bool, close: bool, errs: dict[str, float] | None, tol: float,
                    dtype: torch.dtype) -> dict[str, Any]:
    """What a numeric difference between eager and compiled is, judged against fp64."""
    if errs is None:
        return {}  # no float64 reference to judge by: the difference is all there is
    if dtype == torch.float64 and close:
        # a float64 result has no more precise reference (eager's is it: relative RMSE 0), so
        # no rounding amplification to measure within the tolerance (probes34d
        # gp_regression_chol_ok: "both far from the float64 reference (eager 0, compiled
        # 1.88e-13)")
        return {}
    e, k = errs["eager_rel"], errs["compiled_rel"]
    out: dict[str, Any] = {"fp64": {key: float(f"{v:.4g}") for key, v in errs.items()}}
    if close:  # within the tolerance: the rounding amplification; a verdict only past AMPLIFIED
        # the precision it was computed in: autocast's when on (a float32 output of bfloat16
        # arithmetic rounds at bfloat16's step, probes26 acc_autocast_bf16_eval)
        eps = max(torch.finfo(dtype).eps, _autocast_eps()) if dtype.is_floating_point else 0.0
        if e >= 1.0 and k >= 1.0:
            # both further from the reference than its own size: a value zero in exact
            # arithmetic (a bias gradient before BatchNorm), rounding noise on both sides,
            # which has no relative error to amplify (probes26 acc_dataclass_state_bn)
            return out
        if eps and (e or k):
            out["amplification"] = float(f"{max(e, k) / eps:.3g}")
            if out["amplification"] >= AMPLIFIED and e != k:
                out["verdict"], out["within_tolerance"] = "ill_conditioned", True
        return out
    if e > tol and k <= tol:
        # Compiled agrees with the float64 reference and eager does not (eager rounds in the
        # low precision where compiled keeps float32 intermediates): not ill-conditioning,
        # whatever the ratio of the two errors (eager's may be huge against a zero reference).
        out["verdict"] = "compiled_more_accurate"
    elif e > tol and k <= ILL_CONDITIONED_RATIO * e:
        eps = torch.finfo(dtype).eps if dtype.is_floating_point else 0.0
        out["verdict"] = "ill_conditioned"
        if eps:
            out["amplification"] = float(f"{e / eps:.3g}")
    elif not ok:
        out["verdict"] = "miscompile"
    elif k < e:
        out["verdict"] = "compiled_more_accurate"
    return out


# 64-bit integers that differ only by multiples of 2**32: the compiled code computed them in 32
# bits (an index or arange product past 2**31), measured on the outputs, not guessed.
WRAPPED = ("integer values differ by multiples of 2**32: a 32-bit overflow (the compiled code "
           "computed them in int32 where eager computes in int64)")


def wraps_32(ref: torch.Tensor, res: torch.Tensor) -> bool:
    """Whether two 64-bit integer tensors differ, and only by multiples of 2**32."""
    if ref.dtype not in (torch.int64,) or ref.shape != res.shape or not ref.numel():
        return False
    d = ref.long() - res.long()
    return bool((d != 0).any()) and bool(((d % (1 << 32)) == 0).all())


# Floating dtypes torch stores and casts to but has (almost) no arithmetic for (mul, allclose
# raise NotImplementedError): their values are compared exactly as float32, the tolerance
# stays the dtype's own.
_STORAGE_ONLY = frozenset(getattr(torch, n) for n in (
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu")
    if hasattr(torch, n))


def _lower(a: torch.dtype, b: torch.dtype | None) -> torch.dtype:
    """The float dtype of the two with the coarser rounding step (`a` unless `b` is one)."""
    if b is None or not (a.is_floating_point and b.is_floating_point) or b in _STORAGE_ONLY:
        return a
    return b if torch.finfo(b).eps > torch.finfo(a).eps else a


def coarsest(dtypes: Any) -> torch.dtype | None:
    """Of the float dtypes among `dtypes`, the one with the coarsest rounding step (None:
    none is a float)."""
    low = None
    for d in dtypes:
        if isinstance(d, torch.dtype) and d.is_floating_point:
            low = d if low is None else _lower(low, d)
    return low


def computed_in(gm: Any) -> list[torch.dtype | None]:
    """Per output of a Dynamo graph, the float dtype with the coarsest rounding step among the
    values it is computed from (`h = x.bfloat16() @ W; return x + h.float()`: bfloat16, for a
    float32 output). A float32 output of bfloat16 arithmetic is only as precise as bfloat16,
    and is judged at its tolerance, as autocast's are (probes26 acc_bf16_weights_upcast: a
    float32 tolerance on bfloat16 arithmetic called eager's own rounding a mismatch)."""
    graph = getattr(gm, "graph", None)
    out = next((n for n in reversed(graph.nodes) if n.op == "output"), None) if graph else None
    if out is None:
        return []
    leaves = pytree.tree_leaves(out.args[0])
    found: list[torch.dtype | None] = []
    for leaf in leaves:
        seen, todo = set(), [leaf] if isinstance(leaf, torch.fx.Node) else []
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo.extend(n.all_input_nodes)
        found.append(coarsest(getattr(n.meta.get("example_value"), "dtype", None)
                              for n in seen))
    return found


def compare_output(name: str, ref: Any, res: Any, ref64: Any, tol: Tolerance,
                   through: torch.dtype | None = None) -> OutputCheck:
    """One output: eager `ref` vs compiled `res`, judged with the fp64 reference, at the
    tolerance of the coarsest float dtype it was computed `through` (computed_in)."""
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
    if r.dtype in _STORAGE_ONLY:  # float8: no arithmetic kernels; compared as float32
        r, c = r.float(), c.float()
        ref64 = ref64.detach().float() if isinstance(ref64, torch.Tensor) and \
            ref64.dtype in _STORAGE_ONLY else ref64
    if not r.is_floating_point() and not r.is_complex():
        equal = bool(torch.equal(r, c))
        max_abs = float((r.long() - c.long()).abs().max()) if r.numel() and r.dtype != torch.bool \
            else (0.0 if equal else 1.0)
        if not equal:
            # how many differ, not only by how much: the max abs of an index output (topk's,
            # argmax's) is a distance between item ids (probes39a retrieval_bf16_mul_sum_topk:
            # "max abs 1.58e+03"), where what matters is how many positions chose another
            n = int((r != c).sum()) if r.shape == c.shape else r.numel()
            detail["reason"] = f"integer/bool values differ at {n} of {r.numel()} positions"
            detail["differing"] = n
            if wraps_32(r, c):
                detail["reason"] = WRAPPED
                detail["wraps_at_bits"] = 32
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
    judged = _lower(res.dtype, through)
    t = tol.tol_for(judged)
    detail["tol"] = t
    if judged != res.dtype:
        detail["computed_in"] = str(judged)
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
        # which side is non-finite where the other is not (probes39b point_sources_zero_
        # strength: eager's NaN, compiled's 0 from a `* 0` it folded; said "compiled
        # overflows")
        e_only = bool((~torch.isfinite(r64) & torch.isfinite(c64)).any())
        c_only = bool((torch.isfinite(r64) & ~torch.isfinite(c64)).any())
        detail["nonfinite_side"] = "both" if e_only == c_only else \
            "eager" if e_only else "compiled"
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
            detail.update(numeric_verdict(False, False, errs, t, judged))
    else:
        if not ok:
            detail["reason"] = (f"max abs error {max_abs:.3g}, max rel error {max_rel:.3g} "
                                f"beyond tolerance {t:g} (torch._dynamo.utils.same rules)")
        detail.update(numeric_verdict(ok, close, errs, t, judged))
    if detail.get("verdict") is None:
        detail.pop("verdict", None)
    return OutputCheck(name, ok, _finite(max_abs), _finite(max_rel), detail)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def compare_outputs(ref: Any, res: Any, ref64: Any, tol: Tolerance,
                    through: list[torch.dtype | None] | None = None) -> list[OutputCheck]:
    refs, ress, r64s = _leaves(ref), _leaves(res), _leaves(ref64)
    if len(refs) != len(ress):
        return [OutputCheck("outputs", False, None, None,
                            {"reason": f"{len(refs)} eager outputs vs {len(ress)} compiled"})]
    lows = through if through is not None and len(through) == len(refs) else []
    return [compare_output(f"output {i}", a, b, r64s[i] if i < len(r64s) else None, tol,
                           lows[i] if lows else None)
            for i, (a, b) in enumerate(zip(refs, ress))]


@contextlib.contextmanager
def _preserved_state(gm: torch.nn.Module):
    """RNG streams, module buffers and the tensors the graph holds as attributes as they
    were: the replays must leave no trace. A graph attribute is the program's own tensor (a
    compiled optimizer step holds its parameters and momentum buffers so, by static address):
    an eager replay writing it in place wrote the program's parameters (probes26: a compiled
    `opt.step()` applied three times under --check-accuracy)."""
    cpu = torch.random.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    # restored only where written (its version counter moved): a copy back would move the
    # counter the checker reads to see the program's own updates (a recheck after them)
    # (buffers always: a kernel updating running statistics need not move the counter)
    buffers = {id(b) for _, b in gm.named_buffers()}
    saved = [(t, None if id(t) in buffers else t._version, t.detach().clone())
             for t in _held_tensors(gm)]
    try:
        yield
    finally:
        torch.random.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)
        with torch.no_grad():
            for t, version, copy in saved:
                if (version is None or t._version != version) and t.shape == copy.shape:
                    t.copy_(copy)


def _held_tensors(gm: torch.nn.Module) -> list[torch.Tensor]:
    """The module's buffers and every tensor its graph reads by attribute (get_attr), once."""
    out: dict[int, torch.Tensor] = {id(b): b for _, b in gm.named_buffers()}
    graph = getattr(gm, "graph", None)
    for n in graph.nodes if graph is not None else ():
        if n.op != "get_attr":
            continue
        value: Any = gm
        for part in str(n.target).split("."):
            value = getattr(value, part, None)
        if isinstance(value, torch.Tensor):
            out.setdefault(id(value), value)
    return list(out.values())


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


def _settings(node: torch.fx.Node) -> str | None:
    """The node's keyword settings that choose what the op computes (`mode='nearest'`,
    `align_corners=True`, `reduction='sum'`): strings, and flags set (False is every flag's
    usual default, which a trace may spell out), up to three."""
    said = [f"{k}={v!r}" for k, v in (node.kwargs or {}).items()
            if isinstance(v, str) or v is True][:3]
    return ", ".join(said) or None


def _described(node: torch.fx.Node, **more: Any) -> dict[str, Any]:
    """A node as the check stores it; its value's dtype where it is a tensor (a bf16 op
    whose integer consumer differs is a low-precision difference: probes40b
    argmax_ties_bf16_div)."""
    settings = _settings(node)
    value = node.meta.get("example_value", node.meta.get("val"))
    dtype = {"dtype": str(value.dtype)} if isinstance(value, torch.Tensor) else {}
    return {"node": node.name, "op": str(_op_name(node)), "user_frame": user_line(node),
            **({"settings": settings} if settings else {}), **dtype, **more}
