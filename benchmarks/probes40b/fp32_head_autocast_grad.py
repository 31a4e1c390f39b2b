# Drawn from pytorch/pytorch#179804 ("torch.compile + aot_eager: backward
# ignores inner autocast(enabled=False) vs eager"), reproduced on CPU with
# bf16 autocast on torch 2.13: the classifier head is forced to fp32 inside the
# compiled forward, the forward output matches eager exactly, but the compiled
# backward runs the head's matmul under the outer bf16 autocast, so every
# gradient differs from eager at bf16 precision.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 128))
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        h = self.backbone(x)
        with torch.autocast("cpu", enabled=False):
            # keep the logits in fp32 for a stable softmax / loss
            logits = self.head(h.float())
        return logits


def main():
    model = torch.compile(Classifier())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(32, 64)
    y = torch.randint(0, 10, (32,))
    for step in range(3):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        head_grad = model.head.weight.grad
        print(f"step {step}: loss {loss.item():.6f} head grad norm {head_grad.norm().item():.8f}")
        opt.step()


if __name__ == "__main__":
    main()
