"""The words for a first divergent node where the program's own arithmetic leaves its dtype's
range, so the program's values, not the compiler, are what to change: floats converted out
of an integer dtype's range (capture/narrowing.py; probes32f int8_weight_only_linear), and
eager overflowing a low-precision float (capture/accuracy_localise.py)."""

from __future__ import annotations

from typing import Any

NARROWING_EXPLANATION = (
    "Converting a float outside an integer dtype's range is undefined behaviour: eager wraps "
    "it around (128.0 becomes -128 in int8) and the compiled kernel saturates it (127), so "
    "the two disagree wherever a value is out of range, and neither is what the program "
    "meant")
NARROWING_FIX = (
    "Keep the values inside {dtype}'s range before the conversion: "
    "`.clamp({lo}, {hi}).to(torch.{dtype})`, or choose the scale so that the largest value "
    "maps to {hi} (not {over}). Compiled and eager then agree.")


def narrowing_words(node: dict[str, Any]) -> tuple[str, str, str] | None:
    """(reason suffix, explanation, fix) for a divergent node with `narrowing` facts."""
    n = node.get("narrowing")
    if not isinstance(n, dict) or not isinstance(n.get("range"), list):
        return None
    lo, hi = n["range"]
    dtype = n.get("dtype") or "the integer dtype"
    worst = max((v for v in (n.get("max"), n.get("min")) if isinstance(v, (int, float))),
                key=abs, default=None)
    seen = f", up to {worst:g}" if worst is not None else ""
    reason = (f"; {node.get('op')} (node {node.get('node')}) converts {n.get('count')} of "
              f"{n.get('of')} float values outside {dtype}'s range {lo}..{hi}{seen} to {dtype}")
    return reason, NARROWING_EXPLANATION, NARROWING_FIX.format(dtype=dtype, lo=lo, hi=hi,
                                                               over=hi + 1)


# Eager's low precision overflowing where float64 stays finite, at the first node it does
# (capture/accuracy_localise.localise_conditioning's `overflow`; probes33f fp16_rmsnorm_serve:
# `h.pow(2)` past float16's 65504 in eager, said as "eager rounds" at the model's call line).
OVERFLOW_EXPLANATION = (
    "Eager overflows {dtype} at this op: its value goes past the largest {dtype} number to inf "
    "(float64, and the compiled code's higher-precision intermediates, stay finite), and "
    "everything computed from it is lost. The compiled result is the closer one; the program's "
    "arithmetic is what to change")
OVERFLOW_FIX = (
    "Compute this step in float32 and cast back (`x.float().pow(2).mean(-1)`, then "
    "`.to(torch.{dtype})`), or scale the values down first; matching eager with "
    "`emulate_precision_casts` would only reproduce the overflow.")


def overflow_words(node: dict[str, Any], dtype: str | None) -> tuple[str, str, str] | None:
    """(reason suffix, explanation, fix) for a node where eager overflowed its dtype."""
    if not node.get("overflow") or not node.get("node"):
        return None
    dtype = (dtype or "the low precision").removeprefix("torch.")
    return (f"; eager overflows {dtype} at {node.get('op')} (node {node['node']})",
            OVERFLOW_EXPLANATION.format(dtype=dtype), OVERFLOW_FIX.format(dtype=dtype))
