"""Graph break (library): probes46a causal_lm_encoder_mask_detect. A causal mask handed to
nn.TransformerEncoder without `is_causal`: torch's `_detect_is_causal_mask` compares the mask
with a causal one and reads the answer as a Python bool, a break inside transformer.py at the
encoder's call. Saying `is_causal=True` skips the check; torch's `.item()` hint does not help."""
import torch
import torch.nn as nn

layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
mask = nn.Transformer.generate_square_subsequent_mask(6)


@torch.compile(backend="eager")
def lm(x):
    return encoder(x, mask=mask).mean()  # <- diagnosis


for _ in range(2):
    out = lm(torch.randn(3, 6, 16))
print(round(float(out), 3) == round(float(out), 3))
