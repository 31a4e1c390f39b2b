"""A fused optimizer step under torch.compile: `Adam(fused=True)`'s step calls
torch.optim.adam._fused_adam, which torch wraps in torch.compiler.disable, so the compiled
step breaks its graph there and the fused kernel runs uncompiled. After pytorch/pytorch#121857
("AdamW(fused=True) slower than unfused AdamW") and PR #105256 ("[dynamo] Disable fused adam
op compile")."""
import torch

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.01, fused=True)


@torch.compile(backend="eager")
def step():
    opt.step()  # <- diagnosis


x, y = torch.randn(16, 8), torch.randn(16, 1)
for i in range(3):
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    step()
    opt.zero_grad()
    print(i, round(loss.item(), 4))
