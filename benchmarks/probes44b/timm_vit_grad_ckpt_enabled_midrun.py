"""Fine-tuning a small timm ViT with torch.compile. After a short warm-up the script turns on
activation checkpointing (model.set_grad_checkpointing(True)) to make room for a bigger
effective batch -- a pattern from user fine-tune scripts that enable it once memory is
known. The compiled forward guarded on `self.grad_checkpointing == False`, so flipping it
after compile recompiles the model (forward and backward)."""
import torch
import torch.nn.functional as F
import timm

torch.manual_seed(0)
model = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=5,
                          img_size=32, patch_size=8, depth=4)
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
cmodel = torch.compile(model)
WARMUP_STEPS = 2


def batch(step):
    g = torch.Generator().manual_seed(100 + step)
    return torch.randn(2, 3, 32, 32, generator=g), torch.randint(0, 5, (2,), generator=g)


def train_step(x, y):
    logits = cmodel(x)
    loss = F.cross_entropy(logits, y, label_smoothing=0.1)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.detach()


if __name__ == "__main__":
    for step in range(4):
        if step == WARMUP_STEPS:
            model.set_grad_checkpointing(True)
        x, y = batch(step)
        loss = train_step(x, y)
        print(f"step {step} loss {loss.item():.4f}")
