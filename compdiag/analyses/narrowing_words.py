"""The words for a first divergent node that converts floats out of an integer dtype's range
(capture/narrowing.py records the facts): the program's values, not the compiler, are what
to change. probes32f int8_weight_only_linear."""

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
