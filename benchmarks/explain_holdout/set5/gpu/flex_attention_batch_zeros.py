"""pytorch/pytorch#139462 ("Flex attention returns zeros for batch dimensions > 0 in certain
cases", https://github.com/pytorch/pytorch/issues/139462, open): compiled flex_attention with a
block mask built for KV_LEN=256 while the keys are shorter returns zeros for the second batch
element, where the uncompiled flex_attention and scaled_dot_product_attention agree; the issue's
repro, with a final check of the compiled result against SDPA."""
import torch
from torch.nn import functional as F
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

torch.manual_seed(1234)


def mask_mod(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


mask_2 = create_block_mask(mask_mod=mask_mod, B=2, H=None, Q_LEN=128, KV_LEN=256, device="cuda")
flex_attention_compiled = torch.compile(flex_attention, dynamic=False)

shape = (2, 1, 2, 16)
q = torch.normal(0.0, 3.0, shape, device="cuda")
k = torch.normal(0.0, 3.0, shape, device="cuda")
v = torch.normal(0.0, 3.0, shape, device="cuda")

y0 = F.scaled_dot_product_attention(q, k, v, is_causal=True)
y2 = flex_attention(q, k, v, block_mask=mask_2)
y4 = flex_attention_compiled(q, k, v, block_mask=mask_2)
print(y0.sum().item(), y2.sum().item(), y4.sum().item())
torch.testing.assert_close(y4, y0)
