"""Graph break (library): probes47a asr_decoder_float_causal_mask. A float causal mask passed to
nn.MultiheadAttention beside a bool key padding mask: torch's `_canonical_mask` warns that
mismatched mask types are deprecated, and the warning is a graph break inside the attention
call. Masks of one dtype (a bool causal mask) remove it."""
import torch
import torch.nn as nn

attn = nn.MultiheadAttention(16, 2, batch_first=True)
causal = nn.Transformer.generate_square_subsequent_mask(5)  # float -inf above the diagonal


@torch.compile(backend="eager")
def decode(x, pad):
    out, _ = attn(x, x, x, attn_mask=causal, key_padding_mask=pad)  # <- diagnosis
    return out.relu().mean()


pad = torch.zeros(2, 5, dtype=torch.bool)
pad[1, 3:] = True
print(bool(decode(torch.randn(2, 5, 16), pad) >= 0))
