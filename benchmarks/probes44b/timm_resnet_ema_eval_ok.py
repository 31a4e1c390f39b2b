"""Correct cousin: timm ModelEmaV3 built from an already-compiled ResNet-18; each step the EMA
is updated from the live model and both are evaluated. Compiles cleanly (no recompiles)."""
import torch
import torch.nn.functional as F
import timm
from timm.utils import ModelEmaV3

torch.manual_seed(0)
model = timm.create_model("resnet18", pretrained=False, num_classes=4)
model = torch.compile(model)
ema = ModelEmaV3(model, decay=0.9)
model.eval()


def val_batches(n=3):
    g = torch.Generator().manual_seed(5)
    return [(torch.randn(2, 3, 32, 32, generator=g), torch.randint(0, 4, (2,), generator=g))
            for _ in range(n)]


@torch.no_grad()
def evaluate(net, data):
    tot = 0.0
    for x, y in data:
        tot += F.cross_entropy(net(x), y).item()
    return tot / len(data)


if __name__ == "__main__":
    data = val_batches()
    for step in range(3):
        with torch.no_grad():
            for p in model.parameters():  # stand-in for an optimizer step
                p.mul_(0.99)
        ema.update(model, step=step)
        print(f"step {step} model {evaluate(model, data):.4f} ema {evaluate(ema.module, data):.4f}")
