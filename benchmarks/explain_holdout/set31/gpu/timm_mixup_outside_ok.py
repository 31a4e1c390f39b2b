"""The fixed counterpart of timm_mixup_in_compiled_loss: the same small timm ViT, Mixup (mixup
only) and soft-target loss under bfloat16 autocast, with mixup_fn applied to the batch before
the compiled function, as timm's train.py does (NumPy draws the mixing ratio in eager code).
The compiled function only sees tensors of fixed shapes (64x3x32x32 images, 64x10 soft
targets): one compile of the forward and backward, no graph break, no recompile."""
import numpy as np
import timm
import torch
from timm.data import Mixup
from timm.loss import SoftTargetCrossEntropy

device = "cuda"
torch.manual_seed(0)
np.random.seed(0)
torch.set_float32_matmul_precision("high")

model = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10, img_size=32,
                          patch_size=8, depth=2).to(device).train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
mixup_fn = Mixup(mixup_alpha=0.8, cutmix_alpha=0.0, label_smoothing=0.1, num_classes=10)
criterion = SoftTargetCrossEntropy()


@torch.compile
def soft_loss(x, y_soft):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(x)
    return criterion(logits.float(), y_soft)


images = torch.randn(256, 3, 32, 32, device=device)
labels = torch.randint(0, 10, (256,), device=device)
for step in range(8):
    sl = slice(step % 4 * 64, step % 4 * 64 + 64)
    x, y_soft = mixup_fn(images[sl].clone(), labels[sl])
    loss = soft_loss(x, y_soft)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: loss {loss.item():.2f}")
