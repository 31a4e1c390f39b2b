"""Recompile of a compiled optimizer step when its state is first filled: SGD with momentum
creates its momentum buffers inside the first step(), so the second call of the compiled step
finds `self.state` filled and compiles once more; every later step reuses that graph.
Information, not a problem. After pytorch/pytorch#130467 ("torch.compile(optmizer.step) ...
still cause a recompilation in the second iteration") and PR #122131 (SGD's `len(state) == 0`
state check)."""
import torch

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)


@torch.compile(backend="eager")
def step():
    opt.step()  # <- diagnosis


x, y = torch.randn(16, 8), torch.randn(16, 1)
for i in range(4):
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    step()
    opt.zero_grad()
    print(i, round(loss.item(), 4))
