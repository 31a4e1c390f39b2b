"""Whether TF32 explains a float32 graph's distance from float64 (issue 29 §4).

On a CUDA GPU, float32 convolutions run in TF32 by default (`torch.backends.cudnn.allow_tf32`)
and matmuls do too under `torch.set_float32_matmul_precision('high')`: ten mantissa bits, a
relative error near 1e-3 where float32 promises 1e-7, in eager and compiled alike. Judged
against float32's rounding that looks like an ill-conditioned computation, and a program that
compares with a float64 reference fails its own check while compiled equals eager. Rather
than guess from the flags, the accuracy check measures it: where TF32 can be in effect (a
float32 CUDA input, a matmul or convolution in the graph, a flag on) and eager is far from
float64, eager runs once more with TF32 off; an output whose error falls by RATIO or more is
judged `tf32`, with both errors."""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator

import torch

from compdiag.capture.accuracy_compare import fp64_errors

# The ops TF32 applies to, as they appear in a Dynamo graph's targets (functions, methods,
# modules' types).
TF32_OPS = ("conv", "linear", "mm", "matmul", "einsum", "scaled_dot_product", "bilinear")
RATIO = 10.0  # eager's error against float64 with TF32 on, over the same with it off
# eager further than this from float64 (relative RMSE), about 100 float32 rounding steps: the
# extra eager run is only paid where there is something to explain
NOTABLE = 100 * torch.finfo(torch.float32).eps


def flags_on() -> bool:
    """Whether TF32 is allowed for convolutions or matmuls now (newer torch warns about the
    older attributes: never on the program's stderr)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            conv = bool(torch.backends.cudnn.allow_tf32)
        except Exception:  # noqa: BLE001 - another torch's attribute
            conv = False
        return conv or torch.get_float32_matmul_precision() != "highest"


def may_apply(gm: torch.fx.GraphModule, args: list[Any]) -> bool:
    """A float32 CUDA tensor among the inputs or parameters, an op TF32 applies to in the
    graph, and a TF32 flag on."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)] + list(gm.parameters())
    if not any(t.is_cuda and t.dtype == torch.float32 for t in tensors):
        return False
    names = []
    for n in gm.graph.nodes:
        if n.op == "call_module":
            names.append(type(gm.get_submodule(str(n.target))).__name__)
        elif n.op in ("call_function", "call_method"):
            names.append(getattr(n.target, "__name__", str(n.target)))
    return any(op in name.lower() for name in names for op in TF32_OPS) and flags_on()


@contextlib.contextmanager
def off() -> Iterator[None]:
    """TF32 off for convolutions and matmuls, then both settings as they were."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        conv, precision = torch.backends.cudnn.allow_tf32, torch.get_float32_matmul_precision()
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
    try:
        yield
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.backends.cudnn.allow_tf32 = conv
            torch.set_float32_matmul_precision(precision)


def notable(outs: list[Any]) -> bool:
    """Whether any output's eager result is far enough from float64 to be worth the run."""
    return any(((o.detail.get("fp64") or {}).get("eager_rel") or 0) > NOTABLE for o in outs)


def judge(outs: list[Any], without: list[Any], refs64: list[Any]) -> None:
    """Mark each output whose eager error against float64 falls by RATIO with TF32 off:
    detail `tf32` {eager_rel, eager_rel_without_tf32}, verdict `tf32` where no verdict (or
    only ill-conditioning, which TF32's rounding mimics) was given."""
    for o, w, r64 in zip(outs, without, refs64):
        e = (o.detail.get("fp64") or {}).get("eager_rel")
        if not e or not isinstance(w, torch.Tensor) or not isinstance(r64, torch.Tensor):
            continue
        errs = fp64_errors(w, w, r64)
        e_off = errs["eager_rel"] if errs else None
        if e_off is None or e < RATIO * max(e_off, 1e-300):
            continue
        o.detail["tf32"] = {"eager_rel": float(f"{e:.4g}"),
                            "eager_rel_without_tf32": float(f"{e_off:.4g}")}
        if o.detail.get("verdict") in (None, "ill_conditioned"):
            o.detail["verdict"] = "tf32"
            o.detail.pop("within_tolerance", None)
