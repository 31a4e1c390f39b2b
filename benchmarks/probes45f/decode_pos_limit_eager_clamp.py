"""Greedy decoding with a tiny GRU-cell language model.  The per-token step is compiled
with dynamic=False (a serving config) and takes the decode position `pos` as a Python
int.  A helper clamps logits only in eager mode (a debug safety net written with
torch.compiler.is_compiling(), as libraries do).

Source: pytorch test/dynamo/test_recompiles.py::test_run_mode_after_cache_limit_hit
(an int argument under dynamic=False recompiles per value; once the recompile limit is
hit the frame runs eagerly, so is_compiling() flips and the eager-only path runs).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
V, D, STEPS = 40, 48, 14


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.pos = nn.Embedding(64, D)
        self.cell = nn.GRUCell(D, D)
        self.head = nn.Linear(D, V)


def safe_logits(logits):
    if not torch.compiler.is_compiling():
        # eager-only debug safety net: keep logits in a sane range
        logits = logits.clamp(-4.0, 4.0)
    return logits


lm = TinyLM().eval()


@torch.compile(dynamic=False)
def decode_step(tok, h, pos):
    x = lm.emb(tok) + lm.pos.weight[pos]
    h = lm.cell(x, h)
    logits = safe_logits(lm.head(h) * 8.0)
    return logits, h


with torch.no_grad():
    tok = torch.tensor([1, 2, 3])
    h = torch.zeros(3, D)
    out = []
    for pos in range(STEPS):
        logits, h = decode_step(tok, h, pos)
        tok = logits.argmax(-1)
        out.append(tok)
        print(f"pos {pos:2d} max logit {logits.max().item():.3f}")
    print("tokens", torch.stack(out, 1)[0].tolist())
