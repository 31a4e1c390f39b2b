# "Make the optimizer fast": fused=False AdamW, and its step compiled as well, next to
# a compiled model (compiled-optimizer tutorial pattern plus the fused flag).
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05, fused=False)


@torch.compile
def optimizer_step():
    opt.step()


x = torch.randn(256, 20)
y = x[:, :1] * 2.0 - x[:, 1:2]
for epoch in range(5):
    loss = nn.functional.mse_loss(cmodel(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    optimizer_step()
    print(f"epoch {epoch} loss {loss.item():.5f}")
