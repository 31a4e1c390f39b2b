"""A small GPT-style decoder trained on CUDA under bfloat16 autocast with SDPA attention, the
whole model compiled. The attention module keeps a debug log line from development,
logger.debug("attn q %s kv %s", ...), with the logger at WARNING, so in eager it prints nothing
and costs nothing. Under torch.compile the call still breaks the graph: Dynamo does not trace
logging.Logger methods (skipped module), so every layer's forward is split at that line, in
every step, and the attention and MLP fuse no further than it. The fix: delete the call, move it
out of the compiled code, or list logger.debug in torch._dynamo.config.ignore_logger_methods
(ignore_logging_functions in newer releases)."""
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger("tinygpt")
logger.setLevel(logging.WARNING)
device = "cuda"
torch.manual_seed(0)
V, D, H, T = 512, 256, 4, 128


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x):
        B = x.shape[0]
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        logger.debug("attn q %s kv %s", tuple(q.shape), tuple(k.shape))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, D))
        return x + self.mlp(self.ln2(x))


model = nn.Sequential(nn.Embedding(V, D), Block(), Block(), nn.LayerNorm(D), nn.Linear(D, V))
model = model.to(device)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
cmodel = torch.compile(model)
data = torch.randint(0, V, (64, T + 1), device=device)
for step in range(12):
    ids = data[step % 4 * 16:step % 4 * 16 + 16]
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = cmodel(ids[:, :-1])
    loss = F.cross_entropy(logits.float().reshape(-1, V), ids[:, 1:].reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: loss {loss.item():.3f}")
