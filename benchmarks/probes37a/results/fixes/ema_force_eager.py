# EMA of the weights with torch.optim.swa_utils.AveragedModel; the EMA update is
# compiled with fullgraph=True so that "it is one graph" (torch.compile the model and
# the EMA update, as in EMA-for-diffusion/ViT training recipes).
import torch
torch.compiler.set_stance('force_eager')
import torch.nn as nn
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 2))
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.99))
cmodel = torch.compile(model)
ema_update = torch.compile(ema.update_parameters, fullgraph=True)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)

x = torch.randn(96, 10)
y = (x[:, 0] > 0).long()
for step in range(5):
    loss = loss_fn(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema_update(model)
    with torch.no_grad():
        ema_loss = loss_fn(ema(x), y)
    print(f"step {step} loss {loss.item():.4f} ema_loss {ema_loss.item():.4f}")
