"""Fine-tune a compiled timm ResNet and freeze its BatchNorm statistics after a warm-up epoch.

A detection-style fine-tuning recipe: train one epoch with live BatchNorm, then call
timm.layers.freeze_batch_norm_2d(model), which replaces every BatchNorm2d child in place with
torchvision's FrozenBatchNorm2d (a different module type; no requires_grad change). The model
was compiled before the swap, so the graph's module-type guards fail. Built on timm's BN
freezing helper (huggingface/pytorch-image-models PR #1633) used the way detection fine-tuning
recipes use it; the recompile is the usual one after in-place submodule replacement.
"""
import torch
import torch.nn.functional as F
import timm
from timm.layers import freeze_batch_norm_2d

torch.manual_seed(0)

EPOCHS, STEPS, BATCH = 3, 2, 4


def batches(epoch):
    g = torch.Generator().manual_seed(epoch)
    for _ in range(STEPS):
        yield torch.randn(BATCH, 3, 32, 32, generator=g), torch.randint(0, 5, (BATCH,), generator=g)


def main():
    model = timm.create_model("resnet10t", num_classes=5)
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    for epoch in range(EPOCHS):
        if epoch == 1:
            freeze_batch_norm_2d(model)  # warm-up done: stop updating BN statistics
        model.train()
        total = 0.0
        for x, y in batches(epoch):
            loss = F.cross_entropy(cmodel(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            total += loss.item()
        n_frozen = sum(type(m).__name__ == "FrozenBatchNorm2d" for m in model.modules())
        print(f"epoch {epoch} loss {total / STEPS:.4f} frozen_bn {n_frozen}")


if __name__ == "__main__":
    main()
