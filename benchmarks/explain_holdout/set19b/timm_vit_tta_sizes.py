"""timm 1.0.31 (torch 2.13.0), timm.create_model("vit_tiny_patch16_224", pretrained=False,
img_size=64, depth=2, dynamic_img_size=True): a ViT built to accept any image size.

Multi-scale test-time augmentation: each image batch is resized to several scales, each scale
also flipped, and the compiled ViT's softmax outputs are averaged. The model was created with
dynamic_img_size=True, so its position embedding is resampled for whatever size arrives, and
torch.compile's automatic dynamic shapes should make the size symbolic after the first change.
It does not: timm's PatchEmbed checks `_assert(H % self.patch_size[0] == 0, f"Input height
({H}) should be divisible by patch size ({self.patch_size[0]}).")` (timm/layers/patch_embed.py
:129, and the width at :133), and formatting the symbolic height into the message's f-string
pins it to one value (`eval Eq(s53, 80) [guard added]`, `set_replacement s53 = 80`). Every new
scale recompiles the whole ViT as a static graph: "tensor 'x' size mismatch at index 2.
expected 80, actual 96". pytorch/pytorch#139474 ("Recompilation exausted with `size mismatch
at index 2`", a ViT-based matting decoder fed images of many sizes) reports the same
recompiles per resolution.
"""
import timm
import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10,
                          img_size=64, depth=2, dynamic_img_size=True).eval()
compiled = torch.compile(model)

images = torch.randn(2, 3, 64, 64)
scales = (64, 80, 96, 48, 112)
with torch.no_grad():
    probs = torch.zeros(2, 10)
    for size in scales:
        x = F.interpolate(images, size=(size, size), mode="bilinear", align_corners=False)
        probs += compiled(x).softmax(-1) + compiled(torch.flip(x, dims=[3])).softmax(-1)
    probs /= 2 * len(scales)
print("tta prediction", probs.argmax(-1).tolist(), "confidence", probs.max(-1).values.tolist())
