# Random-intensity augmentation inside a compiled training step (test_unspec.py
# test_random_values_with_graph_break: Python's `random` inside a compiled function).
import random
import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)


class SpectrogramNet(nn.Module):
    def __init__(self, n_mels=16, n_cls=4):
        super().__init__()
        self.conv = nn.Conv1d(n_mels, 32, 3, padding=1)
        self.head = nn.Linear(32, n_cls)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)).mean(-1))


def augment(spec):
    # random gain in [0.8, 1.2], as audio pipelines do
    gain = random.uniform(0.8, 1.2)
    return spec * gain


model = SpectrogramNet()
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile
def train_step(spec, y):
    spec = augment(spec)
    loss = nn.functional.cross_entropy(model(spec), y)
    loss.backward()
    return loss, spec.abs().max()


data = [(torch.rand(8, 16, 20), torch.randint(0, 4, (8,))) for _ in range(6)]
for step, (spec, y) in enumerate(data):
    opt.zero_grad()
    loss, peak = train_step(spec, y)
    opt.step()
    ratio = peak.item() / spec.abs().max().item()
    print(f"step {step} loss {loss.item():.3f} gain {ratio:.3f}")
    if not 0.79 < ratio < 1.21:
        print("  augmented input out of range: gain should be in [0.8, 1.2]")
