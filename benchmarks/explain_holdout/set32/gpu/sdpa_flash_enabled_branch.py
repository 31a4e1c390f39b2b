"""A small transformer encoder trained on CUDA under bfloat16 autocast, the whole model
compiled. The attention picks its path at run time: SDPA when the flash backend is enabled and
the inputs are half precision, a hand-written softmax attention otherwise (for fp32 runs). The
check calls torch.backends.cuda.flash_sdp_enabled(), a Python wrapper that Dynamo puts in the
graph as a torch function returning a bool, which it cannot do ("torch.* op returned
non-Tensor"): every layer's forward breaks at that line in every step. The fix: decide the
path once outside the model (a constructor flag), or query torch._C._get_flash_sdp_enabled,
which Dynamo constant-folds; or just call SDPA, which picks its backend by itself."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
D, H, T, C = 256, 4, 128, 8


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x):
        B = x.shape[0]
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        if torch.backends.cuda.flash_sdp_enabled() and q.dtype in (torch.float16, torch.bfloat16):
            y = F.scaled_dot_product_attention(q, k, v)
        else:
            y = (q @ k.transpose(-1, -2) * (D // H) ** -0.5).softmax(-1) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, D))
        return x + self.mlp(self.ln2(x))


model = nn.Sequential(Block(), Block(), nn.LayerNorm(D)).to(device)
head = nn.Linear(D, C).to(device)
opt = torch.optim.AdamW([*model.parameters(), *head.parameters()], lr=3e-4)
cmodel = torch.compile(model)
xs = torch.randn(64, T, D, device=device)
ys = torch.randint(0, C, (64,), device=device)
for step in range(12):
    x, y = xs[step % 4 * 16:step % 4 * 16 + 16], ys[step % 4 * 16:step % 4 * 16 + 16]
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(head(cmodel(x).mean(1)).float(), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: loss {loss.item():.3f}")
