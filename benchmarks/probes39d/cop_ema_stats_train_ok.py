# Custom ops in a small training loop: a differentiable op with register_fake +
# register_autograd (setup_context), and a mutating op that keeps an EMA of activations.
import torch


@torch.library.custom_op("probes39d::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.tanh(x) * scale


@scaled_tanh.register_fake
def _(x, scale):
    return torch.empty_like(x)


def _setup(ctx, inputs, output):
    x, scale = inputs
    ctx.scale = scale
    ctx.save_for_backward(x)


def _backward(ctx, g):
    (x,) = ctx.saved_tensors
    t = torch.tanh(x)
    return g * ctx.scale * (1 - t * t), None


scaled_tanh.register_autograd(_backward, setup_context=_setup)


@torch.library.custom_op("probes39d::ema_update", mutates_args={"avg"})
def ema_update(avg: torch.Tensor, x: torch.Tensor, decay: float) -> None:
    avg.mul_(decay).add_(x, alpha=1.0 - decay)


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(6, 12), torch.nn.Linear(12, 3))
act_ema = torch.zeros(12)
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile
def train_step(x, y):
    h = scaled_tanh(model[0](x), 1.5)
    ema_update(act_ema, h.detach().mean(0), 0.9)
    return torch.nn.functional.cross_entropy(model[1](h), y)


for step in range(3):
    x, y = torch.randn(10, 6), torch.randint(0, 3, (10,))
    loss = train_step(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), round(act_ema.sum().item(), 5))
