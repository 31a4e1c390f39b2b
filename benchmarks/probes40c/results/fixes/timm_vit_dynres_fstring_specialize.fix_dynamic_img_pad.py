# Multi-resolution fine-tuning of a small timm ViT with dynamic_img_size=True (pos-embed is
# resampled per input size).  Knowing the image size changes every few steps, the user compiles
# with dynamic=True.  It still recompiles for every new resolution: timm's PatchEmbed.forward
# checks `_assert(H % patch == 0, f"Input height ({H}) should be divisible ...")`, and the
# f-string is built eagerly, formatting the symbolic H and W into text, which specializes them
# to the current size (guard Eq(s, 64) at patch_embed.py).  dynamic=True is already on, so
# "use dynamic shapes / mark_dynamic" is not the fix; dynamic_img_pad=True (skips that assert)
# or a fixed set of sizes is.
import torch
import torch.nn.functional as F
import timm

torch.manual_seed(0)
model = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=5, depth=1,
                          img_size=64, dynamic_img_size=True, dynamic_img_pad=True)  # FIX
opt = torch.optim.SGD(model.parameters(), lr=0.01)
compiled = torch.compile(model, dynamic=True)

schedule = [64, 80, 96]  # progressive resizing
for step, size in enumerate(schedule):
    images = torch.randn(4, 3, size, size)
    labels = torch.randint(0, 5, (4,))
    loss = F.cross_entropy(compiled(images), labels)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} size {size} loss {loss.item():.4f}")
