import torch
import torch.nn as nn

torch.manual_seed(0)


class EarlyExitNet(nn.Module):
    """Skips the expensive refinement block when the cheap head is confident."""

    def __init__(self, d=32, n_cls=5):
        super().__init__()
        self.stem = nn.Linear(d, d)
        self.cheap_head = nn.Linear(d, n_cls)
        self.refine = nn.Sequential(nn.Linear(d, 64), nn.GELU(), nn.Linear(64, n_cls))
        self.refined_batches = 0

    def forward(self, x):
        h = torch.relu(self.stem(x))
        logits = self.cheap_head(h)
        conf = logits.softmax(-1).amax(-1).mean()
        self.refined_batches += int(conf <= 0.9)

        def confident(h, logits):
            return logits

        def refine(h, logits):
            return logits + self.refine(h)

        return torch.cond(conf > 0.9, confident, refine, (h, logits))


model = EarlyExitNet().eval()
fast = torch.compile(model)
with torch.no_grad():
    for i in range(4):
        x = torch.randn(16, 32)
        out = fast(x)
        print(f"batch {i} out {tuple(out.shape)} pred {out.argmax(-1)[:6].tolist()}")
print(f"refined {model.refined_batches} of 4 batches")
