"""Greedy generation with a preallocated (static) KV cache, as Hugging Face's StaticCache does:
each decode step writes its key/value at the current position with index_copy_. The prompt
plus max_new_tokens exceeds the cache length, so the step at position MAX_LEN writes out of
bounds. Eager raises IndexError; compiled code checks the index in its generated kernel."""
import torch
import torch.nn as nn

torch.manual_seed(0)
MAX_LEN, DIM, VOCAB = 16, 32, 64


class TinyDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.out = nn.Linear(DIM, VOCAB)
        self.register_buffer("k_cache", torch.zeros(1, MAX_LEN, DIM))
        self.register_buffer("v_cache", torch.zeros(1, MAX_LEN, DIM))

    def forward(self, token, pos):
        h = self.emb(token)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        self.k_cache.index_copy_(1, pos, k)
        self.v_cache.index_copy_(1, pos, v)
        att = (q @ self.k_cache.transpose(1, 2)) / DIM ** 0.5
        mask = torch.arange(MAX_LEN) > pos
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        return self.out(att @ self.v_cache)


model = TinyDecoder().eval()
step = torch.compile(model)
prompt = [3, 17, 5, 9]
max_new_tokens = 14
with torch.no_grad():
    token = torch.tensor([[prompt[0]]])
    generated = list(prompt)
    for p in range(len(prompt) + max_new_tokens):
        logits = step(token, torch.tensor([p]))
        nxt = prompt[p + 1] if p + 1 < len(prompt) else int(logits[0, -1].argmax())
        if p + 1 >= len(prompt):
            generated.append(nxt)
        token = torch.tensor([[nxt]])
print(generated)
