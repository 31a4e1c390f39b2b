"""Settings `compdiag perf --try` applies in the child before the user's script runs, from
outside its code (COMPDIAG_TRY, comma-separated names; compdiag/analyses/perf_try.py chooses
them). A script that sets the same thing itself later wins: that is its own choice."""

from __future__ import annotations

import os
from typing import Any, Callable

ENV_TRY = "COMPDIAG_TRY"


def _tf32(torch: Any) -> None:
    torch.set_float32_matmul_precision("high")


def _dynamic(torch: Any) -> None:
    # What dynamic=True does for every torch.compile call: sizes symbolic from the first
    # compile, so one graph serves every size (mark_dynamic, without naming the dimension).
    torch._dynamo.config.assume_static_by_default = False
    torch._dynamo.config.automatic_dynamic_shapes = True


def _capture_scalar_outputs(torch: Any) -> None:
    torch._dynamo.config.capture_scalar_outputs = True


def _cpp_wrapper(torch: Any) -> None:
    # The graph's wrapper (the calls into its kernels) generated as C++ instead of Python:
    # what perf advises on the CPU for time a compiled call spends outside its graphs.
    import torch._inductor.config as inductor_config

    inductor_config.cpp_wrapper = True


APPLY: dict[str, Callable[[Any], None]] = {
    "tf32": _tf32, "dynamic": _dynamic, "capture_scalar_outputs": _capture_scalar_outputs,
    "cpp_wrapper": _cpp_wrapper,
}


def apply_from_env(torch: Any) -> list[str]:
    """Apply every setting COMPDIAG_TRY names; the names applied (unknown ones are ignored)."""
    done = []
    for name in filter(None, (n.strip() for n in os.environ.get(ENV_TRY, "").split(","))):
        fn = APPLY.get(name)
        if fn is not None:
            fn(torch)
            done.append(name)
    return done
