"""A failure in the backward graph, kept with its real inputs for `compdiag minify`.

AOTAutograd compiles the backward graph lazily, at the first `.backward()`, outside the
backend call the forward's failure graphs are kept from (capture/failure_graphs.py). Two of
its functions are wrapped, both in `torch._functorch._aot_autograd.runtime_wrappers`:

- `_AutogradBackwardCompiler.get_or_compile`: the backward's compile. An exception out of it
  keeps the backward graph (`lazy_backward_info.bw_module`, ATen ops) with the inputs its
  caller, `CompiledFunction._backward_impl`, was about to pass it (`all_args`: the saved
  tensors, then the incoming gradients), read from that caller's frame.
- `call_func_at_runtime_with_args` when `_backward_impl` calls it: the compiled backward's
  run. The first call of each backward graph holds references to its inputs until it returns
  (AOTAutograd steals the list to free saved tensors early); an exception keeps graph and
  inputs.

What is kept is the forward's format (formats/failure_graph.py) with `"graph": "backward"`;
`compdiag minify` replays it as Inductor compiles a graph, with grad off as in backward.
Fail open: on another torch (the names moved), nothing is wrapped and a run warning says so."""

from __future__ import annotations

import sys
from typing import Any

from compdiag.formats.signature import innermost, signature


class BackwardGraphs:
    """Installed by FailureGraphs (`fg`): writes through its `_write`, once per compile id and
    kind."""

    def __init__(self, fg: Any) -> None:
        self.fg = fg
        self.called: set[int] = set()
        # Under --check-accuracy: each backward graph and clones of its first call's inputs,
        # written when the gradient check finds that call's gradients wrong (on_check).
        self.kept: dict[str | None, tuple[Any, list[Any]]] = {}
        # A backward loaded from AOTAutograd's cache names no compile: its graph and inputs,
        # kept at its first call, are the ones the check right after that call is about.
        self.unnamed: tuple[Any, list[Any]] | None = None
        self.available = True  # False on a torch whose backward compiler it cannot wrap

    def install(self) -> None:
        try:
            from torch._functorch._aot_autograd import runtime_wrappers as rw

            compiler_cls = rw._AutogradBackwardCompiler
            original_compile = compiler_cls.get_or_compile
            original_call = rw.call_func_at_runtime_with_args
        except (ImportError, AttributeError):
            # A torch without these internals (2.11 has no _AutogradBackwardCompiler): the
            # backward's graphs are not kept there, which is no fault of the run, so no
            # warning on every run of it (the zoo on the H200 showed one per model).
            self.available = False
            return
        keeper = self

        def get_or_compile(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return original_compile(self, *args, **kwargs)
            except Exception as exc:
                keeper.failed(self, _caller_local(2, "all_args"), exc, "compile_error")
                raise

        def call_func_at_runtime_with_args(f: Any, args: Any, *rest: Any, **kwargs: Any) -> Any:
            bc = _caller_local(2, "backward_compiler")
            if bc is None or id(bc) in keeper.called or keeper.fg._busy:
                return original_call(f, args, *rest, **kwargs)
            keeper.called.add(id(bc))
            held = list(args)   # the call may empty `args` (steal_args)
            if keeper.fg.accuracy:
                keeper.fg.capture.guarded("backward graph inputs", keeper.keep, bc, held)
            try:
                return original_call(f, args, *rest, **kwargs)
            except Exception as exc:
                keeper.failed(bc, held, exc, "runtime_error")
                raise

        for wrapper in (get_or_compile, call_func_at_runtime_with_args):
            not_traced(wrapper)
        compiler_cls.get_or_compile = get_or_compile
        rw.call_func_at_runtime_with_args = call_func_at_runtime_with_args

    def keep(self, bc: Any, inputs: list[Any]) -> None:
        info = getattr(bc, "lazy_backward_info", None)
        # compdiag's own compiles (the gradient check's localisation) run paused
        if self.fg.capture.paused_depth:
            return
        cid = _compile_id(info, self.fg)
        self.unnamed = None
        if cid in self.kept:
            return
        gm = _bw_module(info)
        if gm is None:
            return
        kept = (gm, [a.detach().clone() if hasattr(a, "detach") else a for a in inputs])
        if cid is None:
            self.unnamed = kept
        else:
            self.kept[cid] = kept

    def on_check(self, check: Any) -> None:
        """A gradient check that failed (capture/grad_accuracy.py): keep the backward graph
        of that compile with its first call's inputs, as an accuracy failure."""
        from compdiag.capture.failure_graphs import Kept, _user_tolerance

        fg = self.fg
        kept = self.kept.get(check.compile_id) or self.unnamed
        self.unnamed = None
        if kept is None or (check.compile_id, "backward accuracy") in fg.recorded:
            return
        fg.recorded.add((check.compile_id, "backward accuracy"))
        bad = [o for o in check.outputs if not o.ok]
        msg = f"{bad[0].output}: {bad[0].detail.get('reason', 'mismatch')}" if bad else "mismatch"
        fg._write(Kept(kept[0]), kept[1], check.compile_id, "accuracy", "accuracy",
                  "AccuracyMismatch", msg, ("AccuracyMismatch", ""), _user_tolerance(),
                  {"graph": "backward"})
        self.forward_with_grads(check.compile_id, msg)

    def forward_with_grads(self, cid: str | None, msg: str) -> None:
        """Also keep the forward graph, its gradients compared: the backward alone, fed the
        compiled forward's saved values, computes right what wrong saved values make it
        compute (probes45e keyword_svm_hinge_tie_grad: a mask of ties, compiled differently
        in the forward, and minify said the backward "does not reproduce"). Not when the
        forward's own outputs already differ: that graph is kept, and it is the cause."""
        from compdiag.capture.failure_graphs import _user_tolerance

        fg = self.fg
        forward = fg.kept.get(cid)
        flags = fg.needs_grad.get(cid) or []
        if forward is None or not forward[1] or (cid, "accuracy") in fg.recorded:
            return
        names = [n["name"] for n in forward[0].nodes if n.get("op") == "placeholder"]
        grads = [n for n, f in zip(names, flags) if f]
        if not grads or len(names) != len(flags):
            return
        fg.recorded.add((cid, "accuracy"))
        fg._write(forward[0], forward[1], cid, "accuracy", "accuracy", "AccuracyMismatch", msg,
                  ("AccuracyMismatch", ""), _user_tolerance(), {"grads": grads})

    def failed(self, bc: Any, inputs: list[Any] | None, exc: BaseException, kind: str) -> None:
        from compdiag.capture.failure_graphs import Kept, _stage

        fg = self.fg
        info = getattr(bc, "lazy_backward_info", None)
        if inputs is None or fg._busy or fg.capture.paused_depth:
            return
        try:  # a backward loaded from AOTAutograd's cache has its graph only serialised
            gm = _bw_module(info)
        except Exception as err:  # noqa: BLE001 - inside the user's exception: never
            fg.capture.warn("backward failure graph", err)  # replace it with ours
            return
        if gm is None:
            return
        cid = _compile_id(info, fg)
        if (cid, f"backward {kind}") in fg.recorded:
            return
        fg.recorded.add((cid, f"backward {kind}"))
        inner = innermost(exc)
        stage = "runtime" if kind == "runtime_error" else _stage(inner)
        fg.capture.guarded("failure graph (backward)", fg._write, Kept(gm), list(inputs), cid,
                           kind, stage, type(inner).__name__, str(inner), signature(inner),
                           None, {"graph": "backward"})


def _bw_module(info: Any) -> Any:
    """The backward graph of AOTAutograd's lazy backward info: `bw_module` when it compiled
    the backward itself; on a hit in its cache (a second run of the same program), the graph
    the cache entry serialised (`bw_module_fn`, node metadata stripped); None without either."""
    gm = getattr(info, "bw_module", None)
    if gm is None and callable(getattr(info, "bw_module_fn", None)):
        gm = info.bw_module_fn()
    return gm


def not_traced(fn: Any) -> None:
    """Dynamo never compiles a wrapper compdiag puts on torch's runtime path, nor what it calls.
    A backward run while a compiled function's frame is active (`loss.backward()` inside it,
    after the break Tensor.backward makes) runs AOTAutograd's backward with Dynamo's frame
    callback on, and Dynamo then compiled compdiag's wrapper as a frame of the user's program:
    compdiag's code (sys._getframe) added graph breaks of its own to the program and to its
    report (set11's gradscaler_step_breaks: two breaks plain python never makes). torch's own
    function sits in Dynamo's skip list, so skipping the wrapper leaves the program as it runs
    without compdiag. Fail open: a torch without these internals compiles it as before."""
    try:
        from torch._dynamo.eval_frame import set_code_exec_strategy
        from torch._dynamo.types import FrameAction, FrameExecStrategy

        # its frame and every frame it calls (compdiag's bookkeeping, then torch's own
        # function, whose frames Dynamo skips anyway) run as they would with no compile
        set_code_exec_strategy(fn.__code__,
                               FrameExecStrategy(FrameAction.SKIP, FrameAction.SKIP))
    except Exception:  # noqa: BLE001, S110 - another torch's internals
        pass


def _caller_local(depth: int, name: str) -> Any:
    """`name` in the frame `depth` levels up when that frame is AOTAutograd's
    `_backward_impl` (a closure variable included), else None."""
    try:
        frame = sys._getframe(depth)
    except ValueError:
        return None
    if frame.f_code.co_name != "_backward_impl":
        return None
    return frame.f_locals.get(name)


def _compile_id(info: Any, fg: Any) -> str | None:
    """The compile id of the forward compile a backward graph belongs to, as capture names
    compiles (capture/compile_context.py)."""
    from compdiag.ingest.parsers import compile_id_of

    ctx = getattr(info, "saved_compile_context", None)
    c = getattr(ctx, "compile_id", None)
    if c is None:
        return fg.compile_id()
    return compile_id_of({"frame_id": c.frame_id, "frame_compile_id": c.frame_compile_id,
                          "attempt": getattr(ctx, "attempt", 0),
                          "compiled_autograd_id": getattr(c, "compiled_autograd_id", None)})


def install(fg: Any) -> BackwardGraphs:
    """Keep the failing backward graphs of `fg`'s compiles (hooks.Capture installs it right
    after the FailureGraphs it feeds)."""
    fg.backward = BackwardGraphs(fg)
    fg.backward.install()
    return fg.backward
