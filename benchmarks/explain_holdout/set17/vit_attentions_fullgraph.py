"""transformers 5.25.0, ViTModel (built from ViTConfig, eager attention, random weights).

`torch.compile(model, fullgraph=True)` and a call with `output_attentions=True`: transformers
installs its output-capturing hooks at the first call that asks for attentions, inside the
compiled forward, under a `threading.Lock` (`with _hook_installation_lock:` in
transformers/utils/output_capturing.py). Dynamo cannot enter a `lock` context manager; under
fullgraph that is an `Unsupported` error raised at the user's call. huggingface/transformers
PR #44638 names the lock as a graph break at hook installation. A first eager call with
`output_attentions=True` (hooks installed before compiling) avoids it.
"""
import torch
from transformers import ViTConfig, ViTModel

torch.manual_seed(0)
config = ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=32,
                   num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                   attn_implementation="eager")
model = ViTModel(config).eval()
compiled = torch.compile(model, fullgraph=True)

with torch.no_grad():
    pixels = torch.randn(2, 3, 32, 32)
    out = compiled(pixel_values=pixels, output_attentions=True)
    print("attention maps:", [tuple(a.shape) for a in out.attentions])
