"""Fixes for breaks on one kind of tensor operation, each naming the form that traces: an op
whose output size depends on the data (the mask form, the static form, the setting only where
torch can trace it) and a tensor attribute set inside compiled code. analyses/fixes.py's RULES
call them."""

from __future__ import annotations

import re


# Ops that select by a mask: a mask kept as a tensor (`torch.where`) replaces them. The
# others (unique, repeat_interleave, bincount...) make a new size no mask stands for:
# probes31a dedup_batch_unique and segment_readout_repeat, where only the setting worked.
_MASKING_OPS = ("nonzero", "masked_select", "argwhere", "index.Tensor")
# The data-dependent-size ops torch's fake tensors can trace with an unbacked size
# (torch/_subclasses/fake_impls.py's register_op_impl, 2.11-2.15): for any other op the
# setting fails too (probes32d ctc_keyword_asr: "aten._ctc_loss.Tensor does not have a meta
# kernel that supports dynamic output shapes").
_UNBACKED_TRACEABLE = _MASKING_OPS + ("unique", "repeat_interleave", "bincount")
DYNAMIC_OUTPUT_CONFIG = ("set `torch._dynamo.config.capture_dynamic_output_shape_ops = True` "
                         "to trace it with an unbacked size")
# static forms where the size is known to the program (probes32b knn_monitor_vote: a fixed
# number of classes; `scatter_add_` on zeros gave 0 breaks and the same votes)
_STATIC_FORMS = {
    "bincount": ("with the number of bins known (a class count), count into a fixed size: "
                 "`torch.zeros(n).scatter_add_(0, x, w)` (`torch.ones_like` for w without "
                 "weights; dim 1 for a batch of rows), or `F.one_hot(x, n).sum(0)`"),
}


def dynamic_output_fix(ctx: str) -> str:
    """A data-dependent output size: the mask fix for an op that selects by a mask, the static
    form an op has where the size is known, the setting only for ops torch can trace with it."""
    op = re.search(r"aten\.([\w.]+)", ctx or "")
    name = op.group(1) if op else ""
    if not name or any(m in name for m in _MASKING_OPS):
        return ("The op's output size depends on the data (nonzero, masked_select, boolean "
                "indexing). Keep shapes static with a mask (`torch.where(mask, x, 0)`), or "
                f"{DYNAMIC_OUTPUT_CONFIG}.")
    if not any(m in name for m in _UNBACKED_TRACEABLE):
        return (f"aten.{name}'s output size depends on the data, and torch cannot trace it "
                "with an unknown size (no meta kernel of it supports dynamic output shapes, "
                "so `capture_dynamic_output_shape_ops` fails on it too): compute it outside "
                "the compiled function (on the compiled function's outputs, or in a small "
                "helper decorated with `@torch.compiler.disable`).")
    static = next((v for k, v in _STATIC_FORMS.items() if k in name), None)
    return (f"aten.{name}'s output size depends on the data: "
            + (f"{static}; or {DYNAMIC_OUTPUT_CONFIG}" if static else
               f"{DYNAMIC_OUTPUT_CONFIG[0].upper()}{DYNAMIC_OUTPUT_CONFIG[1:]}")
            + ", or compute it outside the compiled function and pass the result in.")


def set_attribute_fix(gb_type: str, expl: str, ctx: str, line: str) -> str:
    """A tensor attribute set inside compiled code: `.real`/`.imag` of a complex tensor is
    built in one op instead (probes34d iq_modem_setreal: torch.complex gave 0 breaks)."""
    attr = re.search(r"setattr\(\w*Variable\([^)]*\),\s*(\w+),", ctx or "")
    if attr and attr.group(1) in ("real", "imag"):
        return ("Build the complex tensor in one op from its parts, `torch.complex(real, "
                "imag)` (or `torch.polar(abs, angle)`), instead of writing `.real`/`.imag` of "
                "a tensor made before: Dynamo cannot trace setting a tensor's attribute.")
    name = f"`.{attr.group(1)}`" if attr else "the attribute"
    return (f"Do not set {name} on a tensor inside the compiled function: compute the new "
            "value as a tensor and use it (an in-place op such as `.copy_()` where the tensor "
            "must change), or set it in the eager code around the compiled call.")
