"""A recompile on two sizes that were equal at the first compile (duck sizing).

With dynamic shapes, torch gives sizes that have the same value when it first compiles one
symbol, and guards that they stay equal ("duck sizing"): a service warmed up on a square crop
compiles again at the first non-square request, though it compiled with dynamic=True for
exactly that (probes48c denoise_square_warmup_duck, pytorch PR #186373). The guard reads as
"noisy.size()[3] changed to noisy.size()[2]", a Python value, and the generic words ("pass it
as a tensor") cannot apply to a tensor's own size. The change to make is at the first call,
where the equal sizes came from."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats.guard_source import in_user_spelling

_SIZE = re.compile(r"^(.+?)\.size\(\)\[(\d+)\]$")
# torch's own comment on the guard it added (symbolic_shapes: "duck sizing added this
# equality because these variables had the same size N")
_DUCK = re.compile(r"duck sizing added this equality\D*(\d+)?")


def duck_words(event: dict[str, Any], source: str, where: str
               ) -> tuple[str, str, str, str] | None:
    """(head, change, explanation, fix) of a duck-sizing equality that failed, None for any
    other guard."""
    mine, theirs = _SIZE.match(source or ""), _SIZE.match(str(event.get("before") or ""))
    said = _DUCK.search(str(event.get("failed_guard") or ""))
    if mine is None or theirs is None or said is None:
        return None
    size = f" ({said.group(1)})" if said.group(1) else ""
    a = f"{in_user_spelling(mine.group(1))}.shape[{mine.group(2)}]"
    b = f"{in_user_spelling(theirs.group(1))}.shape[{theirs.group(2)}]"
    return (
        f"{a} and {b} were equal when {where} first compiled, and torch assumed they always "
        "are (duck sizing)", f" ({a} == {b}{size} -> they differ)",
        f"{where} was first compiled with {a} and {b} of the same size{size}. With dynamic "
        "shapes torch gives sizes that are equal at that compile one symbol and guards that "
        "they stay equal (duck sizing), so the first input where they differ compiles again, "
        "with two symbols from then on: dynamic shapes (dynamic=True included) do not cover "
        "it.",
        f"Make the first call (the warm-up) with an input whose sizes differ, or mark "
        f"dimension {mine.group(2)} of that first input dynamic before the call "
        f"(`torch._dynamo.mark_dynamic(tensor, {mine.group(2)})`), or set "
        "`torch.fx.experimental._config.use_duck_shape = False` before the first compile.")

