"""pytorch/pytorch#153799 ("FlexAttention causes nun in backward if sequence length is not multiple
of 128 and both block_mask and score_mod used", https://github.com/pytorch/pytorch/issues/153799,
open): compiled flex_attention in bfloat16 on CUDA with a causal block mask and a relative-position
score_mod, at a sequence length of 1025 (not a multiple of the 128-row blocks). The forward is
finite; the compiled backward kernel returns NaN gradients, and with anomaly detection on (as in
the issue) autograd raises "Function '...Backward...' returned nan values in its 0th output" at
the backward() call, printing the forward traceback of the flex_attention call that made the node.
Only the combination fails: score_mod alone, block_mask alone, or a length of 1024 pass (issue 29
sections 1 and 4: the line torch points at, a NaN from a compiled CUDA kernel).

Why it should still reproduce on torch 2.11: the issue (reported on 2.7.0+cu128, May 2025) is
open, with no fix linked to it; the script is its repro (the unused random import left out,
the call on one line)."""
import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

HEADS = 1
HEAD_DIM = 64
DEVICE = "cuda"
DTYPE = torch.bfloat16
SEQ_LEN = 1025

flex_attention = torch.compile(flex_attention)
torch.autograd.set_detect_anomaly(True)

query = torch.randn(1, HEADS, SEQ_LEN, HEAD_DIM, device=DEVICE, dtype=DTYPE, requires_grad=True)
key = torch.randn(1, HEADS, SEQ_LEN, HEAD_DIM, device=DEVICE, dtype=DTYPE, requires_grad=True)
value = torch.randn(1, HEADS, SEQ_LEN, HEAD_DIM, device=DEVICE, dtype=DTYPE, requires_grad=True)


def mask_mod(_b, _h, q_idx, kv_idx):
    return q_idx >= kv_idx


def score_mod(score, b, h, q_idx, kv_idx):
    return score + (q_idx - kv_idx)


block_mask = create_block_mask(
    mask_mod, B=None, H=None, Q_LEN=SEQ_LEN, KV_LEN=SEQ_LEN, device=DEVICE
)

output = flex_attention(query, key, value, score_mod=score_mod, block_mask=block_mask)

fake_loss = output.mean() * 0.01
fake_loss.backward()
print(query.grad.isnan().any().item())
