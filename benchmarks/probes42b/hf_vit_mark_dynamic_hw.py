"""Multi-resolution ViT inference service with H/W marked dynamic, compiled.

A small HuggingFace ViT classifier (random weights, 64x64 pretraining resolution) serves
images whose resolution varies per request.  To avoid "one compile per resolution" the
service marks the height and width of `pixel_values` dynamic before every call -- the
advice usually given for variable image sizes -- but it calls the model without
`interpolate_pos_encoding=True`.
Source: huggingface/transformers ViT (`ViTEmbeddings.forward` size check), pytorch docs on
torch._dynamo.mark_dynamic; diffusers/pytorch issues about recompiles on resolution change.
"""
import torch
from transformers import ViTConfig, ViTForImageClassification

torch.manual_seed(0)
config = ViTConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                   intermediate_size=128, image_size=64, patch_size=8, num_labels=10)
model = ViTForImageClassification(config).eval()
classify = torch.compile(model)

requests = [(64, 64), (64, 96), (96, 64), (80, 80)]
with torch.no_grad():
    for h, w in requests:
        pixel_values = torch.randn(2, 3, h, w)
        torch._dynamo.mark_dynamic(pixel_values, 2)
        torch._dynamo.mark_dynamic(pixel_values, 3)
        logits = classify(pixel_values=pixel_values).logits
        print(f"request {h}x{w}: top classes {logits.argmax(-1).tolist()}")
