# Greedy decoding with a static (preallocated) KV cache: the write position is a tensor,
# keys/values are written with index_copy_ and attention masks out unwritten slots, so every
# step has the same shapes. Compiled decode vs eager decode, token by token.
import torch
import torch.nn as nn

torch.manual_seed(0)
D, MAXLEN, VOCAB, EOS = 16, 12, 25, 2


class StaticCacheDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, VOCAB)

    def forward(self, tok, pos, k_cache, v_cache):
        q, k, v = self.qkv(self.emb(tok)).chunk(3, dim=-1)        # (1, D)
        k_cache.index_copy_(1, pos, k.unsqueeze(1))
        v_cache.index_copy_(1, pos, v.unsqueeze(1))
        scores = (q.unsqueeze(1) @ k_cache.transpose(1, 2)) / D**0.5  # (1, 1, MAXLEN)
        valid = torch.arange(MAXLEN) <= pos
        scores = scores.masked_fill(~valid, float("-inf"))
        return self.out((scores.softmax(-1) @ v_cache).squeeze(1))


def greedy(step):
    k_cache, v_cache = torch.zeros(1, MAXLEN, D), torch.zeros(1, MAXLEN, D)
    tok, toks, logit_sum = torch.tensor([1]), [], 0.0
    for i in range(MAXLEN):
        logits = step(tok, torch.tensor([i]), k_cache, v_cache)
        logit_sum += logits.abs().sum().item()
        tok = logits.argmax(-1)
        toks.append(tok.item())
        if toks[-1] == EOS:
            break
    return toks, logit_sum


model = StaticCacheDecoder().eval()
with torch.no_grad():
    e_toks, e_sum = greedy(model)
    c_toks, c_sum = greedy(torch.compile(model))
print("eager   :", e_toks, f"{e_sum:.4f}")
print("compiled:", c_toks, f"{c_sum:.4f}")
print("same tokens:", e_toks == c_toks, f"logit sum diff {abs(e_sum - c_sum):.1e}")
