"""What the compiled code left out that the code asks for, in words.

`dropped_rounding` (capture/round_trips.py): the code casts a value down to
float16 or bfloat16 and straight back up, eager rounds it there, and the compiled code keeps the
unrounded value, so a program that rounds on purpose (to simulate lower precision, to add
quantisation noise) gets numbers it did not ask for. The accuracy kind merges these into its
verdict tables. Placeholders: {out} the output, {low} the dtype rounded to, {why} the
comparison's figures."""

from __future__ import annotations

REASONS = {
    "dropped_rounding": "compiled code skips the {low} rounding the code asks for: {out} "
                        "differs from eager, which rounds to {low} and back ({why})",
}
EXPLANATIONS = {
    "dropped_rounding": "The code casts a value down to {low} and straight back up, which "
                        "rounds it to {low}'s precision; Inductor fuses the two casts away and "
                        "keeps the value in the higher precision (torch._inductor.config."
                        "emulate_precision_casts is off by default), so the compiled result is "
                        "the unrounded value. Whatever the round trip is for (simulating lower "
                        "precision, quantisation noise, matching another implementation), the "
                        "compiled code does not do it",
}
FIXES = {
    "dropped_rounding": "Set `torch._inductor.config.emulate_precision_casts = True` before "
                        "the first compiled call, so Inductor rounds at each cast as eager "
                        "does; or do the rounding outside the compiled code (a helper under "
                        "`@torch.compiler.disable`).",
}

# An op reading a copy of the tensor it writes, whose compiled code dropped the copy.
DROPPED_COPY_FIX = ("Give {op} a source it does not write, one the compiler cannot fold "
                    "into the output: make the op out-of-place (return the new tensor, "
                    "declare no mutation) and assign its result, or let it write into a fresh "
                    "tensor and copy that back after it (`out = torch.empty_like(x); op(x, "
                    "out); x.copy_(out)`). Then report the dropped copy to PyTorch with "
                    "`{minify}`'s repro.")

# An input the compiled call writes in place whose written values differ (no finer cause
# found): the write-back is where compiled code differs from eager's in-place op (Inductor
# functionalises the update and writes the result back into the input; its reinplacing pass
# can then read what it already overwrote, pytorch#198270; probes39f stream_state_reset_flip:
# `state.copy_(s + s.flip(0))` wrong, `return s + s.flip(0)` right).
INPUT_WRITE_FIX = ("The wrong values are the ones written back into {name}: as a workaround, "
                   "return the new value from the compiled function and assign it outside "
                   "(`{name} = f({name}, ...)`) instead of updating {name} in place. ")


def input_write_fix(output: str) -> str:
    """INPUT_WRITE_FIX for an output the check labels as an input updated in place (the
    graph's `input NAME (updated in place)`, a function's `NAME[...] (updated in place)`);
    "" for any other output."""
    if not output.endswith(" (updated in place)"):
        return ""
    return INPUT_WRITE_FIX.format(name=output.removeprefix("input ").removesuffix(
        " (updated in place)"))
