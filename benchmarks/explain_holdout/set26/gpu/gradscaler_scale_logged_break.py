"""fp16 AMP training with GradScaler; the compiled step also returns the current loss scale
so the training loop can log how the dynamic scale moves (it halves on overflow, grows later).
"""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
model = nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(),
                      nn.Linear(1024, 10)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler(device, init_scale=2.0**24)
loss_fn = nn.CrossEntropyLoss()


@torch.compile
def forward_step(x, y):
    with torch.autocast(device, dtype=torch.float16):
        logits = model(x)
        loss = loss_fn(logits.float(), y)
    scale = scaler.get_scale()
    return loss, scale


for step in range(8):
    x = torch.randn(128, 256, device=device)
    y = torch.randint(0, 10, (128,), device=device)
    loss, scale = forward_step(x, y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item():.4f} scale {scale:.0f}")
