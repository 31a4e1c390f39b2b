"""A model whose loss helper was marked @torch.compiler.disable long ago (it used to log).
The training step is now compiled with fullgraph=True to make sure it is one graph."""
import torch
import torch.nn as nn


@torch.compiler.disable
def label_smoothing_loss(logits, target, eps=0.1):
    logp = logits.log_softmax(-1)
    nll = -logp.gather(-1, target[:, None]).squeeze(-1)
    return ((1 - eps) * nll - eps * logp.mean(-1)).mean()


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x, y):
        return label_smoothing_loss(self.net(x), y)


torch.manual_seed(0)
model = Classifier()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
step = torch.compile(model, fullgraph=True)
for i in range(3):
    x, y = torch.randn(16, 32), torch.randint(0, 10, (16,))
    loss = step(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {i} loss {loss.item():.4f}")
