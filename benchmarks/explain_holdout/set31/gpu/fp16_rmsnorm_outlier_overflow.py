"""A small decoder-style model served in half precision on CUDA (model.half(), as for fp16
inference), its RMSNorm written by hand without the float32 upcast that Llama/T5 code does.
A few embedding channels carry outlier activations (|x| of a few hundred, like the "massive
activations" of trained LLMs). In eager fp16, x.pow(2) overflows float16 (65504) for those
values, the mean is inf, rsqrt gives 0 and the normalised rows are all zeros; Inductor fuses
pow, mean and rsqrt into one kernel that computes in float32 (no fp16 rounding between the ops),
so the compiled model returns finite, different logits. The user sees eager and compiled
disagree on every token. The fix: upcast in the norm (x.float() ... .to(x.dtype)), which both
paths then agree on; or config.emulate_precision_casts to make Inductor round like eager."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class TinyDecoder(nn.Module):
    def __init__(self, vocab=1000, d=256):
        super().__init__()
        self.emb, self.norm1, self.norm2 = nn.Embedding(vocab, d), RMSNorm(d), RMSNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        h = self.emb(ids)
        h = h + self.mlp(self.norm1(h))
        return self.head(self.norm2(h))


model = TinyDecoder().to(device).eval()
with torch.no_grad():
    model.emb.weight[:, :4] *= 300.0  # outlier channels
model = model.half()
compiled = torch.compile(model)
ids = torch.randint(0, 1000, (8, 64), device=device)
with torch.no_grad():
    eager_out, comp_out = model(ids), compiled(ids)
zero_rows = lambda t: int((t.abs().amax(-1) == 0).sum())  # noqa: E731
print("eager all-zero logit rows:", zero_rows(eager_out - model.head.bias), "of", ids.numel())
print("compiled all-zero logit rows:", zero_rows(comp_out - model.head.bias))
print("max |eager - compiled|:", round(float((eager_out - comp_out).abs().max()), 1))
