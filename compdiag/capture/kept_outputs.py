"""CUDA-graph outputs the program keeps across calls, silently overwritten (pytorch#122192).

Under mode="reduce-overhead" a replay writes its outputs into the recorded graph's static
memory. cudagraph_trees poisons the outputs of an earlier call only when a new generation
starts recording or warming up; in steady-state replays nothing is said, and a tensor the
program kept from an earlier call (`all_logits.append(logits)`) now holds a later call's
values. Nothing in torch's logs tells: capture watches it happen.

After each call of a CUDA-graphed function, an output that the previous call returned, that is
still alive and whose storage this call's outputs reuse, has just been overwritten; if it is
still alive after the *next* call too, the program kept it across a whole call (a loop's
`out = model(x)` drops the old one when it rebinds `out`, so it is not counted). Only outputs
that alias no graph input are watched (an in-place update returned on purpose keeps its input's
storage). One `compdiag:cudagraph_kept_output` record per compiled graph, at the user's call
that overwrote it. The cost: a weak reference and a storage address per output per call, only
for graphs compiled with CUDA graphs."""

from __future__ import annotations

import sys
import weakref
from typing import Any

KEPT_OUTPUT = "cudagraph_kept_output"


def cudagraphed(compiler_fn: Any) -> bool:
    """Whether Dynamo's backend will run the graph under CUDA graphs: mode="reduce-overhead"
    (Inductor's `triton.cudagraphs` patch), the "cudagraphs" backend, or the setting on."""
    fn = getattr(compiler_fn, "_torchdynamo_orig_backend", None) or compiler_fn
    config = getattr(fn, "config", None)
    if isinstance(config, dict) and config.get("triton.cudagraphs"):
        return True
    if getattr(fn, "compiler_name", None) == "cudagraphs":
        return True
    try:
        from torch._inductor import config as inductor_config

        return bool(inductor_config.triton.cudagraphs) and \
            getattr(fn, "compiler_name", "inductor") == "inductor"
    except Exception:  # noqa: BLE001 - another torch: not known to be graphed
        return False


def fresh_outputs(gm: Any) -> tuple[int, ...]:
    """The positions of the graph's outputs whose storage no input shares (from the fake
    values Dynamo traced with): the ones a replay writes into its own static memory."""
    from torch.multiprocessing.reductions import StorageWeakRef

    def storage(node: Any) -> Any:
        val = node.meta.get("example_value") if hasattr(node, "meta") else None
        try:
            return StorageWeakRef(val.untyped_storage())
        except Exception:  # noqa: BLE001 - not a tensor
            return None

    inputs = {s for n in gm.graph.nodes if n.op == "placeholder" if (s := storage(n))}
    out = next((n for n in gm.graph.nodes if n.op == "output"), None)
    if out is None or not out.args:
        return ()
    values = out.args[0] if isinstance(out.args[0], (tuple, list)) else (out.args[0],)
    return tuple(i for i, v in enumerate(values)
                 if (s := storage(v)) is not None and s not in inputs)


class OutputWatch:
    """One compiled graph's outputs, call after call (see the module's docstring)."""

    devices = ("cuda",)  # where replays write static memory (a test watches the CPU)

    def __init__(self, capture: Any, cid: str | None, fresh: tuple[int, ...]) -> None:
        self.capture = capture
        self.cid = cid
        self.fresh = fresh
        self.calls = 0
        self.last: list[tuple[Any, int]] = []  # (weakref, storage address) of the last call
        self.overwritten: list[Any] = []  # weakrefs overwritten by the last call
        self.said = False

    def after(self, out: Any) -> None:
        """Called with each call's outputs, after the call returned."""
        self.calls += 1
        now = self._outputs(out)
        kept = sum(1 for ref in self.overwritten if ref() is not None)
        if kept and not self.said:
            self.said = True
            self._record(kept)
        addresses = {a for _, a in now}
        self.overwritten = [ref for ref, a in self.last
                            if a in addresses and ref() is not None
                            and not any(ref() is r() for r, _ in now)]
        self.last = now

    def _outputs(self, out: Any) -> list[tuple[Any, int]]:
        values = out if isinstance(out, (tuple, list)) else (out,)
        now = []
        for i in self.fresh:
            t = values[i] if i < len(values) else None
            if getattr(getattr(t, "device", None), "type", None) in self.devices:
                now.append((weakref.ref(t), t.untyped_storage().data_ptr()))
        return now

    def _record(self, kept: int) -> None:
        self.capture.guarded("cudagraph outputs", self.capture.ing.event, KEPT_OUTPUT, self.cid,
                             {"compile_id": self.cid, "outputs": kept, "at_call": self.calls,
                              "call": _caller()}, None)


def _caller() -> dict[str, Any] | None:
    """The user's line that called the compiled function: the second user frame from the
    innermost (the first is the compiled function's own, running Dynamo's bytecode)."""
    from compdiag.capture.config_sets import frame_facts
    from compdiag.formats.user_code import is_user_file

    frame: Any = sys._getframe(1)
    found = []
    while frame is not None and len(found) < 2:
        if is_user_file(frame.f_code.co_filename):
            found.append(frame)
        frame = frame.f_back
    return frame_facts(found[-1]) if found else None


def watch(capture: Any, cid: str | None, gm: Any, compiler_fn: Any) -> OutputWatch | None:
    """A watch for a graph compiled with CUDA graphs whose outputs a replay writes; None
    otherwise (nothing to watch, nothing spent)."""
    if not cudagraphed(compiler_fn):
        return None
    fresh = fresh_outputs(gm)
    return OutputWatch(capture, cid, fresh) if fresh else None
