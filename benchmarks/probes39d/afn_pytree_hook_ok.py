# A registered pytree container as the model's input, a forward pre-hook that normalizes it,
# and an autograd.Function (setup_context style) with a non-differentiable second output.
import torch
import torch.utils._pytree as pytree


class Batch:
    def __init__(self, feats, mask):
        self.feats, self.mask = feats, mask


pytree.register_pytree_node(
    Batch, lambda b: ([b.feats, b.mask], None), lambda xs, ctx: Batch(*xs))


class MaskedSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(x, mask):
        p = torch.softmax(x.masked_fill(~mask, -1e9), -1)
        return p, p.argmax(-1)

    @staticmethod
    def setup_context(ctx, inputs, output):
        p, idx = output
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(p)

    @staticmethod
    def backward(ctx, gp, gidx):
        (p,) = ctx.saved_tensors
        return p * (gp - (gp * p).sum(-1, keepdim=True)), None


class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(5, 1)

    def forward(self, batch):
        scores = self.proj(batch.feats).squeeze(-1)
        p, best = MaskedSoftmax.apply(scores, batch.mask)
        return (p * scores).sum(-1), best


def center_hook(module, args):
    (b,) = args
    centered = pytree.tree_map(lambda t: t - t.mean(1, keepdim=True) if t.is_floating_point() else t, b)
    return (centered,)


torch.manual_seed(0)
model = Scorer()
model.register_forward_pre_hook(center_hook)
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    b = Batch(torch.randn(4, 7, 5), torch.rand(4, 7) > 0.2)
    val, best = cmodel(b)
    loss = val.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), best.tolist())
