"""pytorch/pytorch PR #186366 ("Support vmapped compiled autograd.Functions",
https://github.com/pytorch/pytorch/pull/186366, newer than torch 2.13; part of #129845): Dynamo's
handling of ctx.mark_non_differentiable assumed that forward returns a list or tuple, so a
custom autograd.Function returning a single tensor that it marks non-differentiable trips an
internal assertion ("Expected fwd_out to be a BaseListVariable") while Dynamo traces the call.
Here a hard top-1 routing mask (an autograd.Function, as mixture-of-experts code writes it)
gates a layer's output in a compiled training step; eager trains."""
import torch


class TopOneMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, scores):
        mask = (scores == scores.max(dim=-1, keepdim=True).values).to(scores.dtype)
        ctx.mark_non_differentiable(mask)
        return mask

    @staticmethod
    def backward(ctx, grad_mask):
        return None


class Router(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = torch.nn.Linear(16, 4)

    def forward(self, x):
        scores = self.gate(x)
        return TopOneMask.apply(scores) * scores.softmax(dim=-1)


torch.manual_seed(0)
model = torch.compile(Router())
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
batches = [torch.randn(8, 16) for _ in range(3)]
losses = []
for batch in batches:
    opt.zero_grad(set_to_none=True)
    gated = model(batch)
    (gated.pow(2).sum() / len(batch)).backward()
    opt.step()
    losses.append(round(gated.detach().abs().mean().item(), 4))
print(losses)
