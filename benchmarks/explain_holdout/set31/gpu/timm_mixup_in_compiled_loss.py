"""Training a small timm ViT (random weights) on CUDA with timm's Mixup (mixup only) and a
soft-target loss under bfloat16 autocast, the whole loss function compiled, augmentation
included. Mixup draws its decision and ratio with NumPy's global RNG (np.random.rand and
np.random.beta in Mixup._params_per_batch), which Dynamo cannot keep in a graph: it breaks
inside timm at each draw, under the user's `mixup_fn(x, y)` call (line 28), and each drawn
ratio comes back as a new Python float that the resume functions specialise on. The fix: apply
mixup_fn before the compiled function, as timm's train.py does; compile the model and loss."""
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
def mixed_loss(x, y):
    x, y_soft = mixup_fn(x, y)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(x)
    return criterion(logits.float(), y_soft)


images = torch.randn(256, 3, 32, 32, device=device)
labels = torch.randint(0, 10, (256,), device=device)
for step in range(8):
    sl = slice(step % 4 * 64, step % 4 * 64 + 64)
    loss = mixed_loss(images[sl], labels[sl])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: loss {loss.item():.2f}")
