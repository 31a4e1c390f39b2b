"""The fix of an inf/nan verdict by the side that is non-finite (capture/accuracy_compare.py's
`nonfinite_side`): the accuracy kind's inf_nan fix said "the compiled code overflows or
produces NaN where eager does not" also where eager was the one with NaN and compiled code
gave a finite number (probes39b point_sources_zero_strength: `q * (1.0 / r)` with `q = 0` and
`r = 0`; eager and float64 gave NaN, compiled code folded the product by 0 to 0)."""

from __future__ import annotations

from typing import Any

FIXES = {
    "inf_nan_compiled_finite": (
        "Eager (and the float64 reference) give inf/NaN here where the compiled code gives a "
        "finite number: the compiler simplified an expression that IEEE arithmetic makes "
        "non-finite (a product by a constant 0 folded to 0, `x - x` to 0). Do not rely on "
        "inf/NaN propagating through this op: mask the undefined positions yourself "
        "(`torch.where(r == 0, 0.0, q / r)`, skip the zero terms), or test the inputs with "
        "`torch.isfinite` before the call; {bisect} finds the pass responsible."),
}


def nonfinite_kind(verdict: str | None, detail: dict[str, Any]) -> str | None:
    """The inf_nan verdict's fix key where eager alone is non-finite; None otherwise."""
    if verdict == "inf_nan" and detail.get("nonfinite_side") == "eager" and \
            detail.get("matches_fp64") != "compiled":
        return "inf_nan_compiled_finite"
    return None
