"""Validation loop for a timm MobileNetV3 that also collects the indices of misclassified
images (for an error-analysis gallery). The compiled eval step calls .nonzero() on the
"wrong" mask, whose output shape depends on the data -> graph break inside the step.
Pattern from user eval scripts that dump hard examples (e.g. timm validate.py forks)."""
import torch
import torch.nn.functional as F
import timm

torch.manual_seed(0)
NUM_CLASSES = 4
model = timm.create_model("mobilenetv3_small_050", pretrained=False, num_classes=NUM_CLASSES)
model.eval()


def make_val_set(n_batches=4, bs=2):
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(bs, 3, 64, 64, generator=g),
             torch.randint(0, NUM_CLASSES, (bs,), generator=g)) for _ in range(n_batches)]


@torch.compile
def eval_step(images, targets):
    logits = model(images)
    loss = F.cross_entropy(logits, targets, reduction="sum")
    pred = logits.argmax(dim=1)
    correct = (pred == targets).sum()
    wrong_idx = (pred != targets).nonzero().squeeze(1)
    return loss, correct, wrong_idx


def validate(loader):
    total_loss, total_correct, seen, hard = 0.0, 0, 0, []
    with torch.no_grad():
        for b, (x, y) in enumerate(loader):
            loss, correct, wrong_idx = eval_step(x, y)
            total_loss += loss.item()
            total_correct += int(correct)
            hard.extend(b * x.shape[0] + i for i in wrong_idx.tolist())
            seen += x.shape[0]
    return total_loss / seen, total_correct / seen, hard


if __name__ == "__main__":
    val = make_val_set()
    loss, acc, hard = validate(val)
    print(f"val loss {loss:.4f} acc {acc:.3f}")
    print(f"hard examples: {hard}")
