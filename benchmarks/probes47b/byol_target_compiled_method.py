"""BYOL-style self-supervised step. The online network owns a momentum (target) encoder;
its projection of the second view is computed in a helper method that the author had
already decorated with @torch.compile(fullgraph=True) and @torch.no_grad(). Later the whole
model is compiled with fullgraph=True for the training loop (without fullgraph it fails the
same way). Eager and the helper alone work; the outer compile fails inside Dynamo.

Source: pytorch/pytorch#170696 ("[torch.compile] `CatchErrorsWrapper' object has no
attribute '__closure__` when wrapping a fullgraph'd function in fullgraph'd module forward",
2025-12): a method compiled with fullgraph=True, called in a loop from the forward of a
module that is itself compiled with fullgraph=True (the loop in the report is not needed)."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def mlp(dim_in, dim_out):
    return nn.Sequential(nn.Linear(dim_in, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, dim_out))


class BYOL(nn.Module):
    def __init__(self, dim=32, proj=16):
        super().__init__()
        self.online = nn.Sequential(mlp(dim, proj))
        self.predictor = mlp(proj, proj)
        self.target = copy.deepcopy(self.online).requires_grad_(False)

    @torch.compile(fullgraph=True)
    @torch.no_grad()
    def target_projection(self, view):
        return F.normalize(self.target(view), dim=-1)

    def forward(self, view1, view2):
        z2 = self.target_projection(view2)
        p1 = F.normalize(self.predictor(self.online(view1)), dim=-1)
        return 2 - 2 * (p1 * z2).sum(-1).mean()


model = BYOL()
opt = torch.optim.SGD(list(model.online.parameters()) + list(model.predictor.parameters()), lr=0.05)
train_step = torch.compile(model, fullgraph=True)
data = torch.randn(64, 32)
for step in range(5):
    x = data[torch.randperm(64)[:16]]
    loss = train_step(x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x))
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for pt, po in zip(model.target.parameters(), model.online.parameters()):
            pt.mul_(0.99).add_(po, alpha=0.01)
print("loss:", round(loss.item(), 4))
