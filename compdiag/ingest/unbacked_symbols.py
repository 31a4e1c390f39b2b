"""Where each unbacked symbol was made (torch's `create_unbacked_symbol` record): the symbol
(`u5`), the user line that made it, and the fake-tensor op that made it, so a failure that
cannot decide on a data-dependent expression ("Could not guard on data-dependent expression
Eq(u5, 0)") is shown at the value the program read out of a tensor (`int(t[0])`, `.item()`,
`nonzero()`), not only at the op that needed it (probes30a static_cache_fullgraph).

A mixin of the Ingestor (its writer `w`, `run_id`, `seq`, `_frame`)."""

from __future__ import annotations

from typing import Any

from compdiag.formats.user_code import is_user_file

# The frame that dispatches a fake tensor's op to its implementation; the frame after it is
# the op's (local_scalar_dense for `.item()`/`int(t)`, nonzero, slice_forward ...).
_DISPATCH = "dispatch_to_op_implementations_dict"


def making_op(stack: Any) -> str | None:
    """The fake-tensor op implementation that made the symbol, from torch's framework stack
    (outermost first); None where that torch names no such frame."""
    names = [f.get("name") for f in stack or [] if isinstance(f, dict)]
    for i, name in enumerate(names[:-1]):
        if name == _DISPATCH and isinstance(names[i + 1], str):
            return names[i + 1]
    return None


class UnbackedSymbols:
    w: Any
    run_id: int
    seq: int

    def _on_create_unbacked_symbol(self, value: Any, cid: str | None, payload: str | None,
                                   md: dict) -> None:
        if not isinstance(value, dict) or not value.get("symbol"):
            return
        frames = [self._frame(f) for f in value.get("user_stack") or []  # type: ignore[attr-defined]
                  if isinstance(f, dict)]
        user = next((f for f in reversed(frames) if is_user_file(f["filename"])), None) or {}
        self.w.insert("unbacked_symbols", run_id=self.run_id, compile_id=cid, seq=self.seq,
                      symbol=str(value["symbol"]), op=making_op(value.get("stack")),
                      filename=user.get("filename"), lineno=user.get("lineno"),
                      line=user.get("line") or None)
