"""A compiled optimizer step recompiles once when its state is first filled (analyses/
optimizer_state.py). probes37a bf16_sgd_compiled_step: "len(self.state[...]) changed (0 ->
another value)" in torch.optim's SGD.step was the run's one problem, with a fix to pad a list;
every compiled optimizer step makes that recompile on its second call."""

from __future__ import annotations

from types import SimpleNamespace

from compdiag.analyses.optimizer_state import PURPOSE, first_step_state

SGD = "/venv/lib/python3.11/site-packages/torch/optim/sgd.py"
SOURCE = "len(self.state[list(dict.keys(self.state))[0]])"


def _ctx(filename: str) -> SimpleNamespace:
    return SimpleNamespace(code_row=lambda cid: {"filename": filename, "co_name": "step"})


def test_the_first_fill_of_an_optimizers_state_is_by_design():
    assert first_step_state(_ctx(SGD), "1/1", SOURCE, 0) is PURPOSE
    assert first_step_state(_ctx(SGD), "1/1", SOURCE, "0") is PURPOSE


def test_anything_else_is_not():
    assert first_step_state(_ctx(SGD), "1/1", SOURCE, 3) is None          # not the first fill
    assert first_step_state(_ctx("/home/u/train.py"), "0/1", SOURCE, 0) is None  # user's code
    assert first_step_state(_ctx(SGD), "1/1", "len(L['xs'])", 0) is None  # not its state


def test_a_momentum_buffer_first_set_from_none_is_the_first_fill_too():
    """probes37a yolo_np_interp_momentum: SGD's `momentum_buffer_list[0] changed between None
    and a value` in sgd() was a recompile problem; the buffer is created at the first step."""
    assert first_step_state(_ctx(SGD), "2/1", "momentum_buffer_list[0]", "None") is PURPOSE
    assert first_step_state(_ctx(SGD), "2/1", "momentum_buffer_list[0]", "3") is None
    assert first_step_state(_ctx(SGD), "2/1", "L['lr']", "None") is None
