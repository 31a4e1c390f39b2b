"""CUDA-graph outputs the program keeps across calls, silently overwritten (pytorch#122192).

Under mode="reduce-overhead" a replay writes its outputs into the recorded graph's static
memory. cudagraph_trees poisons the outputs of an earlier call only when a new generation
starts recording or warming up; in steady-state replays nothing is said, and a tensor the
program kept from an earlier call (`all_logits.append(logits)`) now holds a later call's
values. Nothing in torch's logs tells: capture watches it happen.

After each call of a CUDA-graphed function, an output the previous call returned whose memory
this call's outputs reuse has just been overwritten. cudagraph_trees returns the same tensor
object from replay to replay, so a program that keeps every call's output holds that object
once more after each call (its reference count grows); another tensor over the same memory is
suspect as long as it lives. A suspect is kept by the program when one of the program's lists
holds it (gc's referrers: a list a user frame, a user module's globals or a user object refers
to); torch's own references and a name rebound at each call (`out = model(x)`) do not count.
Only outputs that alias no graph input are watched (an in-place update returned on purpose
keeps its input's storage). One `compdiag:cudagraph_kept_output` record per compiled graph,
at the user's call that overwrote it. The cost, only for graphs compiled with CUDA graphs: a
weak reference, a storage address and a reference count per output per call, and at most
MAX_LOOKS searches of the heap per graph."""

from __future__ import annotations

import collections
import gc
import sys
import types
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
    MAX_LOOKS = 8  # searches of the heap for who holds an output, per graph

    def __init__(self, capture: Any, cid: str | None, fresh: tuple[int, ...]) -> None:
        self.capture = capture
        self.cid = cid
        self.fresh = fresh
        self.calls = 0
        # the last call's outputs: (weakref, storage address, references then)
        self.last: list[tuple[Any, int, int]] = []
        self.looked: set[int] = set()  # ids of outputs searched once already
        self.looks = 0
        self.said = False

    def after(self, out: Any) -> None:
        """Called with each call's outputs, after the call returned (before the program sees
        them): an earlier output this call overwrote, held in one of the program's lists."""
        self.calls += 1
        values = out if isinstance(out, (tuple, list)) else (out,)
        now = [t for i in self.fresh if i < len(values)
               if getattr(getattr(t := values[i], "device", None), "type", None) in self.devices]
        addresses = {t.untyped_storage().data_ptr() for t in now}
        if not self.said and self.looks < self.MAX_LOOKS:
            for ref, address, refs in self.last:
                old = ref()
                if old is None or address not in addresses:
                    continue
                # torch returns the same tensor from replay to replay (cudagraph_trees'
                # cached outputs): a program that keeps each call's output holds it once
                # more after every call; another object over the memory is held at all
                same = any(old is t for t in now)
                if (not same or sys.getrefcount(old) > refs) and self._kept(old):
                    self.said = True
                    self._record()
                    break
        self.last = [(weakref.ref(t), t.untyped_storage().data_ptr(), sys.getrefcount(t))
                     for t in now]

    def _kept(self, old: Any) -> bool:
        """Whether a list of the program's own holds `old` (gc's referrers, at most
        MAX_LOOKS times a graph, once per output object)."""
        if id(old) in self.looked:
            return False
        self.looked.add(id(old))
        self.looks += 1
        return kept_by_program(old)

    def _record(self) -> None:
        self.capture.guarded("cudagraph outputs", self.capture.ing.event, KEPT_OUTPUT, self.cid,
                             {"compile_id": self.cid, "at_call": self.calls,
                              "call": _caller()}, None)


_HISTORY = (list, collections.deque)  # where a program accumulates outputs call after call


def kept_by_program(obj: Any) -> bool:
    """Whether one of the program's lists (or deques) holds `obj`: a list that a local of a
    user frame on the stack, a user module's globals or an instance of a user class refers
    to. torch's own references (cudagraph_trees keeps its outputs in lists of its nodes) and
    a local name rebound at each call (`out = model(x)`) do not count."""
    lists = [h for h in gc.get_referrers(obj) if isinstance(h, _HISTORY)]
    if not lists:
        return False
    from compdiag.formats.user_code import is_user_file

    # a running function's locals are not gc referrers: read them off the stack
    local = set()
    frame: Any = sys._getframe(1)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            local.update(id(v) for v in frame.f_locals.values() if isinstance(v, _HISTORY))
        frame = frame.f_back
    return any(id(h) in local or _users(h, is_user_file) for h in lists)


def _users(container: Any, is_user_file: Any) -> bool:
    """A user module's globals or a user class' instance refers to `container`."""
    for ref in gc.get_referrers(container):
        if isinstance(ref, dict):
            name = ref.get("__name__") if "__builtins__" in ref else None
            module = sys.modules.get(name) if isinstance(name, str) else None
            if module is not None and is_user_file(getattr(module, "__file__", None) or ""):
                return True
        elif not isinstance(ref, (types.FrameType, list, tuple)) and \
                is_user_file(getattr(sys.modules.get(type(ref).__module__), "__file__", None)
                             or ""):
            return True
    return False


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
