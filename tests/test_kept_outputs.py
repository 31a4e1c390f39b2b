"""CUDA-graph outputs kept across calls and silently overwritten (capture/kept_outputs.py).

set34/gpu cg_eval_logits_alias_after_warmup (H100, torch 2.11): an eval loop under
mode="reduce-overhead" appended each batch's logits to a list; every steady-state replay wrote
the same static memory, so all kept logits held the last batch's values and the accuracy was
wrong with no error and nothing in torch's logs (pytorch#122192). explain's top was a TF32
hint. The watch is tested here on CPU tensors standing in for a replay's static outputs (a new
tensor object over the same storage at each call); tests/gpu runs it under real CUDA graphs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
from cdtest import end_fed_run, fed_run  # noqa: E402

from compdiag.analyses.explain import explain  # noqa: E402
from compdiag.capture.kept_outputs import (KEPT_OUTPUT, OutputWatch, cudagraphed,  # noqa: E402
                                           fresh_outputs, kept_by_program)
from compdiag.store.reader import Reader  # noqa: E402


class _Events:
    paused_depth = 0

    def __init__(self) -> None:
        self.events: list[tuple] = []
        self.ing = self

    def guarded(self, _what: str, fn, *args) -> None:
        fn(*args)

    def event(self, kind, cid, data, payload=None) -> None:
        self.events.append((kind, cid, data))


def _replays(keep, same: bool = False) -> _Events:
    """Eight calls of a 'graph' whose output lives in one static buffer, as a steady-state
    CUDA-graph replay returns it: the same tensor object each time (`same`, cudagraph_trees'
    cached outputs) or a new tensor object over the same storage; `keep(out)` is what the
    program does with it."""
    cap = _Events()
    watch = OutputWatch(cap, "0/0", (0,))
    watch.devices = ("cpu",)
    static = torch.zeros(4)
    cached = static.view(4)
    for step in range(8):
        static.fill_(step)
        out = cached if same else static.view(4)
        watch.after((out,))
        keep(out)
        del out
    return cap


@pytest.mark.parametrize("same", [False, True], ids=["new object", "same object"])
def test_outputs_kept_in_a_list_are_said_once(same):
    kept: list[torch.Tensor] = []
    cap = _replays(kept.append, same)
    assert [e[0] for e in cap.events] == [KEPT_OUTPUT], cap.events
    _, cid, data = cap.events[0]
    assert cid == "0/0" and data["at_call"] == 2, data
    # what the program then reads: every kept tensor holds the last call's values
    assert {float(t[0]) for t in kept} == {7.0}


@pytest.mark.parametrize("same", [False, True], ids=["new object", "same object"])
def test_a_loop_that_rebinds_its_output_is_not_said(same):
    last: dict[str, torch.Tensor] = {}
    cap = _replays(lambda out: last.__setitem__("out", out), same)
    assert cap.events == []


@pytest.mark.parametrize("same", [False, True], ids=["new object", "same object"])
def test_a_clone_kept_is_not_said(same):
    kept: list[torch.Tensor] = []
    cap = _replays(lambda out: kept.append(out.clone()), same)
    assert cap.events == [] and [float(t[0]) for t in kept] == list(map(float, range(8)))


def test_outputs_torch_itself_holds_are_not_the_programs():
    """set34/gpu cg_session_kv_static_rerecord: a recording's output stays alive in torch's
    own lists; the program cloned it and kept only the clone."""
    assert not kept_by_program(_held_by_torch())


def _held_by_torch() -> torch.Tensor:
    import types
    node = types.new_class("CUDAGraphNode", (), {})()
    node.__class__.__module__ = "torch._inductor.cudagraph_trees"
    t = torch.zeros(2)
    node.outputs = [t]
    _held_by_torch.node = node  # type: ignore[attr-defined]
    return t


def test_outputs_that_alias_an_input_are_not_watched():
    """A view of an input (or the input itself) returned on purpose keeps the input's storage
    at every call: only outputs a replay writes into its own memory are watched."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def f(x):
        return x.view(-1), x * 2

    torch.compile(f, backend=backend)(torch.randn(2, 3))
    assert fresh_outputs(graphs[0]) == (1,)


def test_cudagraphs_is_known_from_the_backend():
    torch._dynamo.reset()
    seen = []

    from torch._dynamo.output_graph import OutputGraph
    original = OutputGraph.call_user_compiler

    def spy(self, gm, example_inputs):
        seen.append(cudagraphed(self.compiler_fn))
        return original(self, gm, example_inputs)

    OutputGraph.call_user_compiler = spy
    try:
        torch.compile(lambda x: x + 1, backend="eager")(torch.randn(2))
        torch.compile(lambda x: x - 1, backend="cudagraphs")(torch.randn(2))
    finally:
        OutputGraph.call_user_compiler = original
        torch._dynamo.reset()
    assert seen == [False, True]


def test_the_diagnosis_is_a_silent_wrong_result_at_the_call(tmp_path):
    user, w, rid, ing = fed_run(tmp_path, "import torch\n\nfor xb in batches:\n"
                                "    logits = cmodel(xb)\n    kept.append(logits)\n")
    ing.event(KEPT_OUTPUT, "0/0", {"compile_id": "0/0", "outputs": 1, "at_call": 6,
                                   "call": {"filename": str(user), "lineno": 4,
                                            "name": "<module>",
                                            "line": "logits = cmodel(xb)"}})
    end_fed_run(w, ing, rid, user, 1)
    with Reader(tmp_path / "s.db") as r:
        top = explain(r, rid)[0].to_json()
    assert top["kind"] == "cudagraph" and "silently overwritten" in top["reason"], top
    assert top["user_frame"]["lineno"] == 4, top["user_frame"]
    assert ".clone()" in top["fix"]
