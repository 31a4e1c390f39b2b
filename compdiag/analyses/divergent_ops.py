"""Words for a divergent op whose difference says what kind of op it is, not what the
compiler did to the graph: a step function fed a value on its threshold (accuracy's
STEP_*), and floating-point floor division, which Inductor lowers as `floor(a / b)` where
eager computes it exactly (probes35d spike_bin_floordiv: `spike_times // BIN_S` put spikes in
the next bin compiled, and the fix offered `emulate_precision_casts`, which changed nothing;
pytorch/pytorch#197895, #177740)."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from compdiag.analyses.locate import locate

# Ops whose output jumps where their input crosses a threshold: a difference of one rounding
# unit in the input (a reordered or simplified sum) becomes a whole unit, or another index.
STEP_OPS = ("floor", "ceil", "round", "trunc", "sign", "argmax", "argmin", "eq", "ne", "gt",
            "ge", "lt", "le", "floor_divide", "remainder", "fmod", "bucketize", "searchsorted")
STEP_EXPLANATION = ("; {op} is a step function: its input, computed by {fed}, differs between "
                    "compiled and eager by rounding only, and {op} turns that into a whole "
                    "step where the input sits on a threshold; the difference comes from how "
                    "the compiler computed {fed} (reordered, fused or simplified), not from "
                    "{op}")
STEP_FIX = ("Do not put a step function on a value that sits on its threshold: {op} of a "
            "value computed by {fed} flips with one rounding unit, in eager too under another "
            "order of the sum. Move the input off the threshold by a small margin on the side "
            "its meaning asks (x + eps or x - eps, eps a few units of its rounding), compute "
            "the input in float64, or compute the step's result another way (a count, an "
            "integer ratio).")


def op_name(node: dict[str, Any]) -> str:
    """A divergent node's op as the program spells it: `aten.floor_divide_` -> floor_divide."""
    return str(node.get("op") or "").split(".")[-1].rstrip("_")


def step_input(ctx: Any, cid: str, node: dict[str, Any]) -> str | None:
    """For a divergent node whose op is a step function (STEP_OPS), the ops computed before it
    on its user line (Dynamo's graph, in order: `softmax, sum and mul`); None otherwise."""
    op = op_name(node)
    if op.split(".")[0] not in STEP_OPS and op not in STEP_OPS:
        return None
    frame = node.get("user_frame") if isinstance(node.get("user_frame"), dict) else {}
    before: list[str] = []
    for n in ctx.r.dynamo_nodes(ctx.run_id, cid):
        if n.get("node") == node.get("node"):
            break
        if frame.get("lineno") and n.get("lineno") == frame.get("lineno"):
            name = re.sub(r"_\d+$", "", str(n.get("node") or ""))
            if name and name not in before:
                before.append(name)
    if not before:
        return None
    return before[0] if len(before) == 1 else ", ".join(before[:-1]) + f" and {before[-1]}"


FLOOR_DIVISION_OPS = ("floordiv", "floor_divide")
FLOOR_CLAUSE = (", floating-point floor division, which Inductor computes as floor(a / b) "
                "(pytorch/pytorch#197895)")
# Where floor(a / b) differs from exact floor division: the rounding of a quotient near an
# integer, and an infinite divisor (probes45e session_time_bucket_inf_window: `-x // inf` is -1
# in eager and -0 compiled, no value near a bin's edge; "torch.floor(a / b)" made both print
# the compiled result, changing the program's own).
FLOOR_MORE = ("; eager (and Python) floor-divide floats exactly, and Inductor divides first, "
              "rounding the quotient, then floors it. They differ where a quotient lies just "
              "below an integer (0.5 // 0.1 is 4.0 in eager, 5.0 compiled: values on a bin's "
              "edge move to the next bin) and where the divisor is infinite (-3.0 // inf is "
              "-1.0 in eager, -0.0 compiled); a known Inductor bug, not this program's")
FLOOR_FIX = ("To keep eager's results, run the floor division outside compiled code (a small "
             "helper decorated `@torch.compiler.disable`), or floor-divide integers where the "
             "values are counts (`torch.div(ms, BIN_MS, rounding_mode='floor')` on int64) and "
             "handle an infinite divisor explicitly (`torch.where(torch.isinf(b), ...)`). "
             "`torch.floor(a / b)` makes eager and compiled agree by giving eager the compiled "
             "result; `emulate_precision_casts` does not change it.")


class FloorDivision(NamedTuple):
    clause: str
    more: str
    fix: str


def floor_division(node: dict[str, Any], verdict: str | None) -> FloorDivision | None:
    """Floating floor division as the first divergent node, where the compiled side is the one
    away from float64 (the verdict says the compiler's); None otherwise."""
    if op_name(node) not in FLOOR_DIVISION_OPS or verdict not in (None, "miscompile"):
        return None
    return FloorDivision(FLOOR_CLAUSE, FLOOR_MORE, FLOOR_FIX)


# An integer output off by one where the op computes in floating point inside (interpolate,
# a pooling or mean over uint8 images): the compiled decomposition rounds where eager's
# integer kernel rounds at its own steps (probes35b thumb_uint8_bilinear: bisect named
# aot_eager, no pass of Inductor's, and the fix offered emulate_precision_casts, which does
# nothing for integers).
INTEGER_DTYPES = ("torch.uint8", "torch.int8", "torch.int16", "torch.int32", "torch.int64")
INTEGER_ROUNDING_FIX = (
    "An integer output off by one: compiled code computes {op} through floating point and "
    "rounds once, where eager's {dtype} kernel rounds at its own steps (a decomposition's "
    "rounding, not a wrong kernel; emulate_precision_casts does not apply to integers). If the "
    "values must match eager exactly, run {op} in eager: move it into a helper decorated "
    "`@torch.compiler.disable` and call that from the compiled code; otherwise compare with a "
    "tolerance of 1. {bisect} says which stage (aot_eager: the decomposition).")


# ops that compute an integer output through floating point (an argmax tie is off by one too,
# for another reason: not these)
# (and a sum of floats into an integer `out=` buffer: eager's kernel casts where the compiled
# code sums in float and casts the total, probes41f sum_out_int_vote_buffer)
FLOAT_INSIDE = ("interpolate", "upsample", "pool", "mean", "resize", "grid_sample", "lerp")
FLOAT_INSIDE_EXACT = ("sum",)  # (not cumsum, logsumexp, nansum)


def integer_rounding(detail: dict[str, Any], max_abs: Any, op: str | None) -> bool:
    """Whether an output that differs is an integer one off by at most one, made by an op
    that computes through floating point."""
    return detail.get("dtype") in INTEGER_DTYPES and isinstance(max_abs, (int, float)) \
        and 0 < max_abs <= 1 and (any(k in (op or "") for k in FLOAT_INSIDE)
                                  or (op or "") in FLOAT_INSIDE_EXACT)


def statement(node: dict[str, Any]) -> str | None:
    """The user's statement a divergent node came from, when the node's op is not what the
    statement calls (Dynamo or a decomposition made it of another call); None otherwise."""
    frame = node.get("user_frame") if isinstance(node.get("user_frame"), dict) else {}
    line = str(frame.get("line") or "").strip()
    op = op_name(node)
    if not line or not op or op in line:
        return None
    return line if len(line) <= 80 else line[:77] + "..."


def op_frame(ctx: Any, cid: str | None, frame: dict[str, Any] | None, op: str | None) -> Any:
    """The divergent op's user line; failing that, the post-grad graph's nodes of that op, or
    its last node with a user line (locate's `fx_node` evidence), before the call."""
    nodes = [n for n in (ctx.graph_nodes(cid) if cid else [])
             if n["filename"] and n["lineno"]]
    mine = [n for n in nodes
            if op and (n["op"] == op or (n["target"] or "").split(".")[-2:-1] == [op])]
    keys = ("filename", "lineno", "line")
    mine, lines = ([{k: n[k] for k in keys} for n in ns] for ns in (mine, nodes))
    return locate(ctx, cid, nodes=[frame if frame and frame.get("filename") else [],
                                   mine, lines])
