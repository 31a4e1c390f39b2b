"""A debugging TorchDispatchMode that checks every op's output for NaN/Inf is
left switched on around the whole training loop of a compiled model. Source:
pytorch/pytorch#164143 ("DebugMode silently disables torch.compile": with a
non-infra TorchDispatchMode active, Dynamo skips the frame -- "non-infra torch
dispatch mode present" -- and the model runs eagerly, with no warning)."""
import torch
import torch.nn as nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


class NanGuard(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.checked = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor) and t.is_floating_point():
                self.checked += 1
                if not torch.isfinite(t).all():
                    raise RuntimeError(f"non-finite output from {func}")
        return out


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def main():
    torch.manual_seed(0)
    model = ConvNet()
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    guard = NanGuard()
    with guard:
        for step in range(3):
            x = torch.randn(8, 1, 16, 16)
            y = torch.randint(0, 4, (8,))
            opt.zero_grad()
            loss = nn.functional.cross_entropy(cmodel(x), y)
            loss.backward()
            opt.step()
            print(f"step {step}: loss={loss.item():.4f}")
    print(f"tensors checked: {guard.checked > 0}")


if __name__ == "__main__":
    main()
