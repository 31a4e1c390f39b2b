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


    # probes41f bf16_setpool_amax_grad_nan (pytorch#186799): NaN in a bf16 gradient only
    # compiled, where compiled code kept a fused sum in float32 and amax's backward divided by
    # the count of tied maxima; "check the op's inputs' range" did not help,
    # emulate_precision_casts did (bisect found it)
    "inf_nan_low_precision": (
        "The compiled code gives inf/NaN where eager, computing in bfloat16/float16, does not: "
        "compiled code keeps intermediates of fused ops in float32 where eager rounds each op "
        "to the low-precision dtype, which "
        "moves ties and cancellations (a max's gradient divided among tied maxima, a "
        "difference of near-equal values). Set `torch._inductor.config.emulate_precision_casts "
        "= True` to round like eager, or make the op robust to it (`.max(dim).values` picks one "
        "maximum where `amax` splits the gradient among ties; compute the sensitive part in "
        "float32); {bisect} finds the pass responsible."),
}


def nonfinite_kind(verdict: str | None, detail: dict[str, Any]) -> str | None:
    """The inf_nan verdict's fix key where eager alone is non-finite, or where compiled code
    alone is non-finite in a low-precision dtype; None otherwise."""
    if verdict == "inf_nan" and detail.get("nonfinite_side") == "eager" and \
            detail.get("matches_fp64") != "compiled":
        return "inf_nan_compiled_finite"
    node = detail.get("divergent_node") if isinstance(detail.get("divergent_node"), dict) \
        else {}
    if verdict == "inf_nan" and detail.get("matches_fp64") != "compiled" and \
            detail.get("nonfinite_side") in (None, "compiled") and any(
            low in str(t) for low in ("bfloat16", "float16")
            for t in (detail.get("dtype"), node.get("dtype"))):
        return "inf_nan_low_precision"
    return None
