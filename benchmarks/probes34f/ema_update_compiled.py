import torch
import torch.nn as nn
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.99))
update_ema = torch.compile(ema.update_parameters)
compiled_model = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

x = torch.randn(1024, 16)
y = torch.sin(x[:, :2].sum(1, keepdim=True))

for step in range(40):
    idx = torch.arange(step * 25, step * 25 + 64) % 1024
    loss = nn.functional.mse_loss(compiled_model(x[idx]), y[idx])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    update_ema(model)
    if step % 10 == 9:
        print(f"step {step + 1} loss {loss.item():.4f}")

with torch.no_grad():
    print(f"val mse raw {nn.functional.mse_loss(model(x), y):.4f} ema {nn.functional.mse_loss(ema(x), y):.4f}")
