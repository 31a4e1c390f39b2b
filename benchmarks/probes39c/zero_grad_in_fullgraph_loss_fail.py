# Compile "everything before backward" as one graph: clear the grads, run the
# model, compute the loss. fullgraph=True to be sure nothing falls back to eager.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(12, 24), torch.nn.GELU(), torch.nn.LayerNorm(24), torch.nn.Linear(24, 3)
)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.1)


@torch.compile(fullgraph=True)
def forward_loss(x, y):
    opt.zero_grad(set_to_none=True)
    logits = model(x)
    return loss_fn(logits, y)


x = torch.randn(48, 12)
y = torch.randint(0, 3, (48,))
for step in range(4):
    loss = forward_loss(x, y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")
