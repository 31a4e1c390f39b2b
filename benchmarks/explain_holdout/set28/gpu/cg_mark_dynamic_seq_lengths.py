"""Serving a small language model with mode="reduce-overhead" on requests of many lengths. The
user marks the sequence dimension dynamic (torch._dynamo.mark_dynamic(tokens, 1)) so that the
model compiles once for all lengths, which it does: no recompile. But CUDA graphs cannot be
dynamic: cudagraph trees record a new CUDA graph (and keep its memory) for each distinct length,
11 here, and past cudagraph_dynamic_shape_warn_limit (8) torch warns "CUDAGraph supports dynamic
shapes by recording a new graph for each distinct input size ... We have observed 9 distinct
sizes". The fix: pad the requests to a few bucket lengths (then mark_dynamic is not needed), or
compile with mode="max-autotune-no-cudagraphs" / the default mode for ragged lengths."""
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
VOCAB, DIM, MAXLEN = 8000, 512, 512


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Parameter(torch.randn(MAXLEN, DIM) * 0.02)
        self.mlp = nn.Sequential(nn.LayerNorm(DIM), nn.Linear(DIM, 4 * DIM), nn.GELU(),
                                 nn.Linear(4 * DIM, DIM))
        self.head = nn.Linear(DIM, VOCAB, bias=False)

    def forward(self, tokens):
        h = self.tok(tokens) + self.pos[: tokens.shape[1]]
        h = h + self.mlp(h)
        return self.head(h[:, -1])


model = TinyLM().cuda().eval()
compiled = torch.compile(model, mode="reduce-overhead")
with torch.inference_mode():
    for T in range(96, 272, 16):  # 11 request lengths
        tokens = torch.randint(0, VOCAB, (16, T), device="cuda")
        torch._dynamo.mark_dynamic(tokens, 1)
        for _ in range(3):
            logits = compiled(tokens)
        next_ids = logits.argmax(-1).cpu()
        print(T, next_ids[:4].tolist())
