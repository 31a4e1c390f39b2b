"""One way to sit between Dynamo and the backend, shared by the accuracy checker and the perf
timer: keep a copy of each graph (structure copied, parameters shared) and wrap what the
backend returns. Fail open: a graph that cannot be copied compiles unwrapped."""

from __future__ import annotations

import copy
from typing import Any, Callable

import torch.fx


def hook_backend_call(active: Callable[[], bool],
                      wrap: Callable[[torch.fx.GraphModule, Callable[..., Any], Any], Any]
                      ) -> Callable[[], None]:
    """Patch OutputGraph.call_user_compiler; `wrap(kept_graph, compiled, compiler_fn)` gives
    the callable Dynamo will call. Returns the uninstaller."""
    from torch._dynamo.output_graph import OutputGraph

    original = OutputGraph.call_user_compiler

    def call_user_compiler(self: Any, gm: torch.fx.GraphModule, example_inputs: Any) -> Any:
        if active():
            return original(self, gm, example_inputs)
        try:
            keep = torch.fx.GraphModule(gm, copy.deepcopy(gm.graph))
        except Exception:  # noqa: BLE001 - compile without the wrapper
            return original(self, gm, example_inputs)
        compiled = original(self, gm, example_inputs)
        return wrap(keep, compiled, self.compiler_fn)

    OutputGraph.call_user_compiler = call_user_compiler

    def uninstall() -> None:
        OutputGraph.call_user_compiler = original
    return uninstall
