"""A learning-rate sweep that reuses one compiled optimizer step across trials.

The optimizer step is compiled once at module level (the "compiled optimizer" recipe, with a
tensor lr so the scheduler does not recompile it); each trial of the sweep builds a fresh model
and a fresh AdamW and trains it for a few steps.
"""
import torch

device = "cuda"
x = torch.randn(256, 64, device=device)
y = torch.randint(0, 10, (256,), device=device)
opt = None


@torch.compile
def opt_step():
    opt.step()


results = {}
for trial, lr in enumerate([3e-4, 5e-4, 1e-3, 2e-3, 3e-3, 5e-3, 1e-2, 2e-2, 3e-2, 5e-2, 1e-1]):
    torch.manual_seed(trial)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)
    ).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(lr))
    for step in range(5):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt_step()
        opt.zero_grad(set_to_none=True)
    results[lr] = loss.item()
    print("trial", trial, "lr", lr, "loss", round(results[lr], 4))
print("best lr", min(results, key=results.get))
