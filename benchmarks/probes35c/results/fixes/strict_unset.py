# Training with a "no surprise recompiles" policy: after the first step the author turns on
# torch._dynamo.config.error_on_recompile so any recompile fails loudly. Then a validation
# pass runs every 3 steps under model.eval().
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self, d=20, h=32, c=3):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.norm = nn.LayerNorm(h)
        self.fc2 = nn.Linear(h, c)

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        h = self.norm(h)
        return self.fc2(h)


def main():
    torch.manual_seed(0)
    model = Classifier()
    cmodel = torch.compile(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    xv, yv = torch.randn(16, 20), torch.randint(0, 3, (16,))
    for step in range(7):
        model.train()
        x, y = torch.randn(16, 20), torch.randint(0, 3, (16,))
        loss = F.cross_entropy(cmodel(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} train loss {loss.item():.4f}")
        if step == 0:
            pass  # error_on_recompile unset
        if step % 3 == 2:
            model.eval()
            with torch.no_grad():
                acc = (cmodel(xv).argmax(-1) == yv).float().mean()
            print(f"step {step} val acc {acc.item():.3f}")


if __name__ == "__main__":
    main()
