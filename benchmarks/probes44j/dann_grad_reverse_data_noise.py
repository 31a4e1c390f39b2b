"""Domain-adversarial training (DANN): features pass through a gradient-reversal
Function (identity in forward, returns its input as-is), then a compiled domain
head adds feature noise in place through `.data` (so autograd sees an identity).

Source: pytorch/pytorch PR #194534 ("[aot_autograd] Replay an input mutation the
way it actually happened", 2026-08): a compiled region that mutates an input which
a custom autograd.Function returned as-is dies in AOTAutograd's mutation epilogue
with "Output 0 of ... is a view and is being modified inplace", while eager runs.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x  # identity: returned as-is

    @staticmethod
    def backward(ctx, grad_out):
        return -ctx.lambd * grad_out, None


class DomainHead(nn.Module):
    def __init__(self, dim=32, noise_std=0.05):
        super().__init__()
        self.noise_std = noise_std
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, feat):
        # feature noise that autograd must not see
        feat.data.add_(torch.randn_like(feat) * self.noise_std)
        return self.net(feat).squeeze(-1)


feature_net = nn.Sequential(nn.Linear(20, 32), nn.ReLU())
label_head = nn.Linear(32, 3)
domain_head = DomainHead()
domain_head_c = torch.compile(domain_head)
params = [*feature_net.parameters(), *label_head.parameters(), *domain_head.parameters()]
opt = torch.optim.SGD(params, lr=0.05)


def train_step(xs, ys, xt, lambd):
    opt.zero_grad()
    fs, ft = feature_net(xs), feature_net(xt)
    cls_loss = nn.functional.cross_entropy(label_head(fs), ys)
    feats = GradReverse.apply(torch.cat([fs, ft]), lambd)
    dom_logits = domain_head_c(feats)
    dom_y = torch.cat([torch.zeros(len(fs)), torch.ones(len(ft))])
    dom_loss = nn.functional.binary_cross_entropy_with_logits(dom_logits, dom_y)
    (cls_loss + dom_loss).backward()
    opt.step()
    return cls_loss.item(), dom_loss.item()


for step in range(4):
    xs, ys = torch.randn(16, 20), torch.randint(0, 3, (16,))
    xt = torch.randn(16, 20) + 0.5
    c, d = train_step(xs, ys, xt, lambd=0.1 * (step + 1))
    print(f"step {step}: cls={c:.4f} dom={d:.4f}")
