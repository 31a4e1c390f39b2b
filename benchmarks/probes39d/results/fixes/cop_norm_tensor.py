# A custom op (torch.library.custom_op) with a registered autograd formula whose backward
# normalizes the incoming gradient by its norm (a per-op gradient clip), read with .item().
import torch


@torch.library.custom_op("probes39d::softclip", mutates_args=())
def softclip(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(x)


@softclip.register_fake
def _(x):
    return torch.empty_like(x)


def setup_context(ctx, inputs, output):
    ctx.save_for_backward(output)


def backward(ctx, g):
    (y,) = ctx.saved_tensors
    g = g / g.norm().clamp(min=1.0)
    return g * (1 - y * y)


softclip.register_autograd(backward, setup_context=setup_context)

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile
def train_step(x, y):
    pred = model[1](softclip(model[0](x)))
    return torch.nn.functional.mse_loss(pred, y)


x, y = torch.randn(32, 4) * 3, torch.randn(32, 1)
for step in range(3):
    loss = train_step(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))
