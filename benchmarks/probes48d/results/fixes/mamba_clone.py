"""Tiny Mamba-style language model trained for a few steps on CPU.

Every block is a pre-norm residual block in the style of mamba_ssm's `Block`: it takes
(hidden, residual), adds them, normalises, mixes, and hands (hidden, residual) to the next
block.  The block's forward is marked `torch.compiler.nested_compile_region` so that
torch.compile traces one block once and reuses it for every layer.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, LAYERS, SEQ = 64, 32, 4, 16


class GatedConvMixer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.in_proj = nn.Linear(dim, 2 * dim)
        self.conv = nn.Conv1d(dim, dim, kernel_size=3, padding=2, groups=dim)
        self.out_proj = nn.Linear(dim, dim)

    def forward(self, x):
        u, gate = self.in_proj(x).chunk(2, dim=-1)
        u = self.conv(u.transpose(1, 2))[..., : x.shape[1]].transpose(1, 2)
        return self.out_proj(F.silu(u) * torch.sigmoid(gate))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mixer = GatedConvMixer(dim)

    @torch.compiler.nested_compile_region
    def forward(self, hidden, residual=None):
        residual = hidden.clone() if residual is None else residual + hidden
        hidden = self.mixer(self.norm(residual))
        return hidden, residual


class TinyMamba(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.blocks = nn.ModuleList(Block(DIM) for _ in range(LAYERS))
        self.norm_f = nn.LayerNorm(DIM)
        self.lm_head = nn.Linear(DIM, VOCAB, bias=False)

    def forward(self, ids):
        hidden, residual = self.embed(ids), None
        for block in self.blocks:
            hidden, residual = block(hidden, residual)
        return self.lm_head(self.norm_f(hidden + residual))


model = TinyMamba()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
compiled = torch.compile(model)
data = torch.randint(0, VOCAB, (48, SEQ + 1))

for step in range(6):
    batch = data[step * 8 : (step + 1) * 8]
    logits = compiled(batch[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
