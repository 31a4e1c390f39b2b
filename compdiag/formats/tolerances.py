"""How close compiled must come to eager: one table for capture's accuracy checker
(`run --check-accuracy`, the pytest plugin) and the minifier's oracle, and so for every repro
(the block between the markers is copied into it verbatim).

The numbers are torch._dynamo.utils.same's per-dtype `tol` (its fp64 RMSE rule applies on
top). Keyed by dtype name, so this module needs no torch."""

from __future__ import annotations

# --- compdiag oracle begin ---
DTYPE_TOL = {"float16": 1e-2, "bfloat16": 1e-2, "float32": 1e-4, "float64": 1e-7,
             # float8: one step of the format's mantissa (e4m3: 2**-3, e5m2: 2**-2)
             "float8_e4m3fn": 0.125, "float8_e4m3fnuz": 0.125, "float8_e5m2": 0.25,
             "float8_e5m2fnuz": 0.25}
OTHER_TOL = 1e-4  # every other dtype


def default_tol(dtype):
    """same()'s `tol` for a torch dtype (or its name) when the user gave none."""
    return DTYPE_TOL.get(str(dtype).replace("torch.", ""), OTHER_TOL)
# --- compdiag oracle end ---


def user_tol(rtol: float | None, atol: float | None) -> float | None:
    """The user's --rtol/--atol as one `tol` for same(): the larger of the two; None when
    neither is given (then `default_tol` decides per dtype)."""
    if rtol is None and atol is None:
        return None
    return max(rtol or 0.0, atol or 0.0)
