"""An embedding lookup with a safety check on the token ids that must not sync the host during
CUDA-graph capture, so it is skipped while a capture is running (a library-style guard)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")


class SafeEmbedding(nn.Embedding):
    def forward(self, ids):
        if not torch.cuda.is_current_stream_capturing():
            torch._assert_async((ids >= 0).all() & (ids < self.num_embeddings).all())
        return F.embedding(ids, self.weight)


class TinyLM(nn.Module):
    def __init__(self, vocab=8000, dim=256):
        super().__init__()
        self.emb = SafeEmbedding(vocab, dim)
        self.mix = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        h = self.emb(ids)
        return self.head(h + self.mix(h))


model = TinyLM().to(device)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

for step in range(5):
    ids = torch.randint(0, 8000, (32, 64), device=device)
    logits = compiled(ids)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, 8000), ids[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item():.4f}")
