"""The gradients' float64 reference widens a graph's own casts as the forward's does, and a
replay that fails says nothing on the program's stderr. probes40b fp32_head_autocast_grad
(pytorch#179804), blind: a head kept in float32 (`self.head(h.float())`) under bf16 autocast;
the gradient check's float64 copy kept `h.float()` float32 beside float64 weights, raised
"mat1 and mat2 must have the same dtype", and torch.fx printed 20 lines of traceback into a
program whose plain run printed none. Both tests fail on the code before."""

from __future__ import annotations

import torch
import torch.fx

from compdiag.capture.grad_accuracy import Modes, _gm64, eager_grads


class Head(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = torch.nn.Linear(8, 3)

    def forward(self, h):
        return self.head(h.float())


def test_the_float64_copy_of_a_graph_widens_its_float_casts():
    gm = torch.fx.symbolic_trace(Head())
    out = _gm64(gm)(torch.randn(4, 8, dtype=torch.float64))
    assert out.dtype == torch.float64


def test_a_replay_that_raises_prints_nothing(capfd):
    gm = torch.fx.symbolic_trace(Head())
    gm.head.to(torch.float64)  # a graph whose own call fails: float32 input, float64 weight
    x = torch.randn(4, 8, requires_grad=True)
    try:
        eager_grads(gm, [x], [True], {0: torch.ones(4, 3)}, torch.random.get_rng_state(),
                    Modes.now())
    except RuntimeError:
        pass
    assert capfd.readouterr().err == ""
