"""A small causal language model trained on CUDA under bf16 autocast; the loss is compiled and
keeps only the real tokens with boolean-mask indexing, logits[mask] and labels[mask], where
mask = labels != -100 (padding). A boolean index is a nonzero() on the device: its output size
depends on the data, so Dynamo cannot put it in the graph and breaks there (Dynamic shape
operator aten.nonzero) on every step; the loss runs in pieces with a host sync in the middle.
The fix: let the loss skip the padding itself, F.cross_entropy(logits.flatten(0, 1),
labels.flatten(), ignore_index=-100), or weight the per-token loss by mask.float()."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
V, D, T = 512, 128, 64
model = nn.Sequential(nn.Embedding(V, D), nn.Linear(D, 4 * D), nn.GELU(),
                      nn.Linear(4 * D, D), nn.LayerNorm(D), nn.Linear(D, V)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)


@torch.compile
def token_loss(logits, labels):
    mask = labels != -100
    return F.cross_entropy(logits[mask].float(), labels[mask])


tokens = torch.randint(0, V, (64, T + 1), device=device)
lengths = torch.randint(T // 2, T + 1, (64,), device=device)
labels_all = tokens[:, 1:].masked_fill(torch.arange(T, device=device) >= lengths[:, None], -100)
for step in range(12):
    i = step % 4 * 16
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(tokens[i:i + 16, :-1])
    loss = token_loss(logits, labels_all[i:i + 16])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: loss {loss.item():.3f}")
