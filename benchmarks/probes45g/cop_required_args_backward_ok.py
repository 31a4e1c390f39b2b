"""Correct cousin of cop_default_args_backward.py: the op schema has no defaults.

Custom op with explicit flags + register_autograd, trained under torch.compile.

Source: pytorch/pytorch#162687 ("custom op with torch.compile backward error when op
has default arguments"): when the call passes values equal to the schema defaults,
the compiled backward sees fewer inputs than the grads register_autograd returns:
"Expected the return from backward to be of the same structure as the inputs".
"""
from typing import Optional

import torch
import torch.nn as nn

torch.manual_seed(0)


@torch.library.custom_op("probes45g::scaled_act_req", mutates_args=())
def scaled_act(x: torch.Tensor, scale: Optional[float],
               clamp: bool, center: bool) -> list[torch.Tensor]:
    y = x * (scale if scale is not None else 1.0)
    if center:
        y = y - y.mean(dim=-1, keepdim=True)
    if clamp:
        y = y.clamp(-3, 3)
    return [y]


@scaled_act.register_fake
def _(x, scale, clamp, center):
    return [torch.empty_like(x)]


def _setup(ctx, inputs, output):
    ctx.scale = inputs[1] if inputs[1] is not None else 1.0
    ctx.center = inputs[3]


def _backward(ctx, grads):
    g = grads[0] * ctx.scale
    if ctx.center:
        g = g - g.mean(dim=-1, keepdim=True)
    return g, None, None, None


scaled_act.register_autograd(_backward, setup_context=_setup)


class Block(nn.Module):
    def __init__(self, d=24):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        h = scaled_act(self.fc(x), None, False, True)[0]
        return self.head(h)


def main():
    model = Block()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    cmodel = torch.compile(model, fullgraph=True)
    x = torch.randn(32, 24)
    y = torch.randn(32, 1)
    for step in range(4):
        loss = nn.functional.mse_loss(cmodel(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.5f}")


if __name__ == "__main__":
    main()
