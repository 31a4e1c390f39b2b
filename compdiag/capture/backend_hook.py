"""One way to sit between Dynamo and the backend, shared by the accuracy checker, the perf
timer and the failure-graph keeper: keep something of each graph before the backend sees it
(by default a copy of the structure, parameters shared), wrap what the backend returns, and
optionally hear of a compile that raised. Fail open: a graph that cannot be kept compiles
unwrapped, and the backend's exception always propagates unchanged."""

from __future__ import annotations

import copy
from typing import Any, Callable

import torch.fx


def copy_graph(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The graph's structure copied (the backend may rewrite it in place), parameters shared."""
    return torch.fx.GraphModule(gm, copy.deepcopy(gm.graph))


def _innermost(compiled: Any) -> Any:
    """What torch itself would wrap: Dynamo puts the backend's callable in one
    `torch._dynamo.disable` layer after unwrapping any it already has (innermost_fn). A
    wrapper of ours in between would keep the inner layer too, and the user's traceback
    would show torch's `_fn` frame twice where plain python shows it once."""
    try:
        from torch._dynamo.eval_frame import innermost_fn

        return innermost_fn(compiled)
    except Exception:  # noqa: BLE001 - another torch: wrap what the backend returned
        return compiled


def _real_forward(compiled: Any) -> Any:
    """What Dynamo itself calls when the backend returned a lazy GraphModule's forward (the
    eager backend returns `gm.forward`, a `_lazy_forward` until the module is recompiled):
    Dynamo recompiles the module and calls its real forward (OutputGraph, right after
    call_user_compiler). A wrapper of ours hides the lazy forward from that check, and the
    lazy one calls the module's `__call__`, so every global module hook
    (`register_module_forward_pre_hook`) would run once more per call, on the GraphModule:
    capture would change what the program computes. Done here as Dynamo does it."""
    try:
        from torch.fx._lazy_graph_module import _LazyGraphModule

        owner = getattr(compiled, "__self__", None)
        if isinstance(owner, _LazyGraphModule) and \
                getattr(compiled, "__name__", None) == "_lazy_forward":
            _LazyGraphModule.force_recompile(owner)
            return owner.forward
        if isinstance(compiled, _LazyGraphModule):
            _LazyGraphModule.force_recompile(compiled)
    except Exception:  # noqa: BLE001 - another torch: wrap what the backend returned
        pass
    return compiled


def _restart(exc: BaseException) -> bool:
    """Dynamo's own control flow, not a failure: a backend may raise a RestartAnalysis
    (Inductor's tensorify pass raises TensorifyScalarRestartAnalysis when a float input
    cannot become a tensor; OutputGraph.call_user_compiler lets it through) and Dynamo traces
    the frame again, as the next attempt of the same compile."""
    try:
        from torch._dynamo.exc import RestartAnalysis
    except ImportError:  # another torch: every exception is heard
        return False
    return isinstance(exc, RestartAnalysis)


def hook_backend_call(active: Callable[[], bool],
                      wrap: Callable[[Any, Callable[..., Any], Any], Any], *,
                      keep: Callable[[torch.fx.GraphModule], Any] = copy_graph,
                      on_error: Callable[[Any, Any, BaseException], None] | None = None
                      ) -> Callable[[], None]:
    """Patch OutputGraph.call_user_compiler, chaining with whatever already wraps it.

    While `active()` the call passes straight through (compiles compdiag makes itself).
    `keep(gm)` runs before the backend; None or an exception means "compile unwrapped".
    `wrap(kept, compiled, compiler_fn)` gives the callable Dynamo will call;
    `on_error(kept, example_inputs, exc)` hears of a backend that raised (not of a restart
    Dynamo recovers from by tracing again: `_restart`). Returns the uninstaller."""
    from torch._dynamo.output_graph import OutputGraph

    original = OutputGraph.call_user_compiler

    def call_user_compiler(self: Any, gm: torch.fx.GraphModule, example_inputs: Any) -> Any:
        if active():
            return original(self, gm, example_inputs)
        try:
            kept = keep(gm)
        except Exception:  # noqa: BLE001 - compile without the wrapper
            kept = None
        if kept is None:
            return original(self, gm, example_inputs)
        try:
            compiled = original(self, gm, example_inputs)
        except Exception as exc:
            if on_error is not None and not _restart(exc):
                try:
                    on_error(kept, example_inputs, exc)
                except Exception:  # noqa: BLE001, S110 - the user's exception is the one to see
                    pass
            raise
        return wrap(kept, _real_forward(_innermost(compiled)), self.compiler_fn)

    OutputGraph.call_user_compiler = call_user_compiler

    def uninstall() -> None:
        OutputGraph.call_user_compiler = original
    return uninstall
