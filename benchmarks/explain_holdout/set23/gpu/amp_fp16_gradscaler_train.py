"""Mixed-precision (fp16 autocast + GradScaler) training of a small transformer encoder
classifier on one GPU, with the model compiled and the scaler kept outside the compiled code."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")


class Encoder(nn.Module):
    def __init__(self, vocab=5000, dim=256, heads=4, depth=3, classes=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        h = self.encoder(self.emb(tokens))
        return self.head(h.mean(dim=1))


model = Encoder().to(device)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
scaler = torch.amp.GradScaler("cuda")

for step in range(40):
    tokens = torch.randint(0, 5000, (32, 128), device=device)
    labels = torch.randint(0, 5, (32,), device=device)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = F.cross_entropy(compiled(tokens), labels)
    opt.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale():.0f}")
