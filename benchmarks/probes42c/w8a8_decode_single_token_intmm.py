"""Greedy decoding with a tiny int8 (W8A8, dynamic per-token activation scale) MLP language model.

Weights are quantized once to int8 per output channel; every step quantizes the
activations per token and runs the matmul in int8 with torch._int_mm, the way
torchao-style W8A8 "dynamic activation" linears do on CPU.  The decode step is
compiled; the prompt has one sequence, so every step feeds a single token.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, DIM, HIDDEN = 96, 256, 512


def quantize_weight(w):
    scale = w.abs().amax(dim=1).clamp(min=1e-8) / 127.0
    q = (w / scale[:, None]).round().clamp(-128, 127).to(torch.int8)
    return q.t(), scale                       # (in, out) int8 view, per-out-channel scale


class W8A8Linear(nn.Module):
    def __init__(self, lin: nn.Linear):
        super().__init__()
        qw, s = quantize_weight(lin.weight.detach())
        self.register_buffer("qweight_t", qw)
        self.register_buffer("w_scale", s)
        self.register_buffer("bias", lin.bias.detach().clone())

    def forward(self, x):
        a_scale = x.abs().amax(dim=-1, keepdim=True).clamp(min=1e-5) / 127.0   # per token
        xq = (x / a_scale).round().clamp(-128, 127).to(torch.int8)
        acc = torch._int_mm(xq.reshape(-1, x.shape[-1]), self.qweight_t)    # int32 accumulators
        y = acc.to(torch.float32).reshape(*x.shape[:-1], -1)
        return y * a_scale * self.w_scale + self.bias


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.up = nn.Linear(DIM, HIDDEN)
        self.down = nn.Linear(HIDDEN, DIM)
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, tok):
        h = self.emb(tok)
        h = h + self.down(torch.nn.functional.gelu(self.up(self.norm(h))))
        return self.head(self.norm(h))


def quantize_model(m):
    for name in ("up", "down", "head"):
        setattr(m, name, W8A8Linear(getattr(m, name)))
    return m


import copy
fp32_model = TinyLM().eval()
model = quantize_model(copy.deepcopy(fp32_model)).eval()


@torch.compile
def decode_step(tok):
    logits = model(tok)                      # tok: (batch, 1)
    return logits[:, -1].argmax(-1, keepdim=True), logits[:, -1]


def generate(step_fn, prompt, steps):
    tok = torch.tensor([[prompt[-1]]])        # last prompt token, batch of one
    out, all_logits = [], []
    with torch.no_grad():
        for _ in range(steps):
            tok, logits = step_fn(tok)
            out.append(tok)
            all_logits.append(logits)
    return torch.cat(out, 1), torch.stack(all_logits)


def fp32_step(tok):
    logits = fp32_model(tok)
    return logits[:, -1].argmax(-1, keepdim=True), logits[:, -1]


prompt = [5, 17, 42]
ref_ids, ref_logits = generate(fp32_step, prompt, 8)
ids, logits = generate(decode_step, prompt, 8)
err = (logits - ref_logits).abs().max().item()
print("fp32 greedy:", ref_ids.tolist())
print("w8a8 greedy matches fp32:", torch.equal(ids, ref_ids))
print("w8a8 logit error vs fp32 within 0.25:", err < 0.25)
