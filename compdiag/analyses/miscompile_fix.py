"""The fix of a compiled graph that computes another result than eager (the accuracy kind's
miscompile): find the culprit (bisect, minify), and until torch fixes it, a workaround at the
first divergent op's line that works whatever the culprit: run that op outside compiled code,
or, for an op on an integer or 16-bit dtype, compute it in a wider one (probes43b
autocontrast_uint8_amin, pytorch#191499: Inductor's `amin` of uint8 data returned 0; the
fix said only bisect and minify, while `.int()` before the op was right)."""

from __future__ import annotations

from typing import Any

from compdiag.analyses.fixes import commands

REPORTED_FP_NOISE = ("fp16/bf16 differences within ~1e-2 are expected reordering, not a bug "
                     "(try torch._inductor.config.emulate_precision_casts = True)")
# dtypes whose lowering is a narrow path of Inductor's (integer kernels, 16-bit floats)
NARROW = ("uint8", "int8", "int16", "bool", "float16", "bfloat16")
WORKAROUND = (" Until it is fixed, at line {lineno} (`{line}`): run that op outside compiled "
              "code (put it in a small function decorated with `@torch.compiler.disable`)")
# the compiled function is an exported program's module (probes44h
# export_compile_reverse_upsample, pytorch#190765: the disable helper did nothing, export
# had traced through it; flipping before the upsample, in the model, did)
EXPORTED = (" Until it is fixed: the compiled code is an exported graph, which runs none of "
            "your Python, so a `@torch.compiler.disable` helper changes nothing; write line "
            "{lineno} (`{line}`) another way in the model (the same result by other ops or "
            "in another order) and export again, or run the exported module uncompiled")
WIDER = ("{sep} compute it on a wider dtype (`.int()` or `.float()` before `{op}`, then "
         "`.to(torch.{dtype})` back)")


def accuracy_fix(run_id: int, argv: list[str], injected: dict[str, Any],
                 store: str | None = None, low: bool = True,
                 node: dict[str, Any] | None = None, generated: bool = False) -> str:
    """`low`: a float16/bfloat16 output (the note on reordering is noise for float32's);
    `node`: the first divergent node (its op, dtype and user line), for the workaround;
    `generated`: the compiled function is an FX graph's generated code (an exported
    program's module), which runs no line of the program's Python."""
    minify, bisect = commands(run_id, argv, store)
    out = ("An Inductor *_TESTING_ONLY bug injector was on (" + ", ".join(
        f"{k}={v!r}" for k, v in injected.items()) + "): unset it. ") if injected else ""
    return out + (f"Find the pass or kernel responsible with {bisect}, then `{minify}` for a "
                  f"repro" + (f"; {REPORTED_FP_NOISE}." if low else ".")) + \
        ("" if injected else workaround(node, generated))


def workaround(node: dict[str, Any] | None, generated: bool = False) -> str:
    """The workaround at the first divergent op's user line ("" without one)."""
    frame = (node or {}).get("user_frame")
    if not isinstance(frame, dict) or not frame.get("lineno") or not frame.get("line"):
        return ""
    out = (EXPORTED if generated else WORKAROUND).format(lineno=frame["lineno"],
                                                         line=frame["line"])
    dtype = str(node.get("dtype") or "").removeprefix("torch.")  # type: ignore[union-attr]
    if dtype in NARROW and node.get("op"):  # type: ignore[union-attr]
        out += WIDER.format(sep=", or", op=node["op"], dtype=dtype)  # type: ignore[index]
    return out + "."
