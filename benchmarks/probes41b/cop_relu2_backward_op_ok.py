"""Small MLP with a fused squared-ReLU custom op (Primer / nanoGPT-speedrun style).

The forward op has a fake (meta) kernel; its backward is a second custom op,
``mlp_ops::relu2_bwd``, registered through ``register_autograd``; that
second op has its own fake kernel too, so torch.compile can trace the joint
forward+backward graph with fake tensors (correct cousin).

Source: torch.library custom-op docs ("register_autograd ... backward in terms
of other custom ops") and the "There was no fake impl registered" reports,
e.g. Lightning-AI/lightning-thunder PR #2530 quoting the torch error.
"""
import torch
import torch.nn as nn


@torch.library.custom_op("mlp_ops::relu2", mutates_args=())
def relu2(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x).square()


@relu2.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("mlp_ops::relu2_bwd", mutates_args=())
def relu2_bwd(grad: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return grad * 2.0 * torch.relu(x)


@relu2_bwd.register_fake
def _(grad, x):
    return torch.empty_like(grad)


def _setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def _backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return relu2_bwd(grad, x)


relu2.register_autograd(_backward, setup_context=_setup_context)


class MLP(nn.Module):
    def __init__(self, d_in=16, d_hidden=64, d_out=4):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.fc2(relu2(self.fc1(x)))


def main():
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    compiled = torch.compile(model)
    x = torch.randn(128, 16)
    y = torch.randint(0, 4, (128,))
    for step in range(5):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(compiled(x), y)
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
