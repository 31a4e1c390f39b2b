"""Graph break (library) whose user frames torch's traceback leaves out: the break is inside
nn.MultiheadAttention's mask check, reached from a block's attention call that a loop over the
blocks inlined. torch's "User code traceback" lists the compiled call and torch's own frames,
not the two user lines Dynamo was tracing; compdiag reads those from the translators Dynamo
ran (capture/break_stack.py), so the diagnosis is at the call that passed the float mask."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.mlp = nn.Linear(dim, dim)

    def forward(self, x, causal, pad):
        h, _ = self.attn(x, x, x, attn_mask=causal, key_padding_mask=pad)  # <- diagnosis
        return x + self.mlp(h)


class Decoder(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(depth))

    def forward(self, x, pad):
        causal = torch.triu(torch.full((x.size(1), x.size(1)), float("-inf")), 1)
        for block in self.blocks:
            x = block(x, causal, pad)
        return x


model = torch.compile(Decoder(), backend="eager")
pad = torch.zeros(2, 6, dtype=torch.bool)
pad[0, 4:] = True
print(model(torch.randn(2, 6, 16), pad).shape)
