"""Which function of torch's compiler specialised a symbol: the innermost frame of Inductor's,
a decomposition's, a reference's or a meta function's in the live stack a
symbolic_shape_specialization record carries (its user stack is empty when Inductor's
lowering did it: probes46b multires_adaptive_pool_dynamic, `_adaptive_avg_pool2d` at
torch/_inductor/lowering.py:5983). Stored with the specialisation, so the recompile it causes
is said at that op's line with what made the size a constant."""

from __future__ import annotations

from typing import Any, Iterable

_COMPILER = ("torch/_inductor/", "torch/_decomp/", "torch/_refs/", "torch/_prims/",
             "torch/_meta_registrations.py")
# torch's own plumbing between a lowering and the shape environment (not what specialised)
_PLUMBING = ("torch/_inductor/sizevars.py", "torch/_inductor/graph.py",
             "torch/_inductor/compile_fx.py", "torch/_inductor/utils.py")


def torch_specializer(frames: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """{file (from torch/), lineno, name} of the innermost compiler frame, else None."""
    for f in reversed(list(frames)):
        path = str(f.get("filename") or "").replace("\\", "/")
        at = path.rfind("torch/")
        short = path[at:] if at >= 0 else path
        if short.startswith(_COMPILER) and not short.startswith(_PLUMBING):
            return {"file": short, "lineno": f.get("lineno"), "name": f.get("name")}
    return None
