# A per-row norm clip written as a torch.library custom op (so it can later be swapped for a
# C++ kernel), used inside a compiled policy head. Eager kernel and autograd formula, no fake.
import torch
import torch.nn as nn

@torch.library.custom_op("rlops::row_clip", mutates_args=())
def row_clip(x: torch.Tensor, max_norm: float) -> torch.Tensor:
    norms = x.norm(dim=-1, keepdim=True)
    return x * (max_norm / norms.clamp(min=max_norm))


def _setup_ctx(ctx, inputs, output):
    x, max_norm = inputs
    ctx.save_for_backward(x)
    ctx.max_norm = max_norm


def _backward(ctx, grad):
    (x,) = ctx.saved_tensors
    with torch.enable_grad():
        xd = x.detach().requires_grad_()
        y = xd * (ctx.max_norm / xd.norm(dim=-1, keepdim=True).clamp(min=ctx.max_norm))
        (gx,) = torch.autograd.grad(y, xd, grad)
    return gx, None


row_clip.register_autograd(_backward, setup_context=_setup_ctx)


@row_clip.register_fake
def _(x, max_norm):
    return torch.empty_like(x)


class PolicyHead(nn.Module):
    def __init__(self, d_in=16, d_hidden=32, n_actions=4):
        super().__init__()
        self.body = nn.Linear(d_in, d_hidden)
        self.out = nn.Linear(d_hidden, n_actions)

    def forward(self, obs):
        h = torch.tanh(self.body(obs))
        h = row_clip(h, 2.0)
        return torch.log_softmax(self.out(h), dim=-1)


def main():
    torch.manual_seed(0)
    policy = PolicyHead()
    step = torch.compile(policy)
    opt = torch.optim.SGD(policy.parameters(), lr=0.05)
    for it in range(4):
        obs = torch.randn(8, 16)
        actions = torch.randint(0, 4, (8,))
        adv = torch.randn(8)
        logp = step(obs)
        loss = -(logp.gather(1, actions[:, None]).squeeze(1) * adv).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"iter {it} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
