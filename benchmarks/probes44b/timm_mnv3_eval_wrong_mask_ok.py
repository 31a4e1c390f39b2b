"""Correct cousin of timm_mnv3_eval_wrong_idx_nonzero.py: the compiled eval step returns the
boolean "wrong" mask (static shape); the data-dependent .nonzero() runs eagerly outside."""
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
    wrong = pred != targets
    return loss, correct, wrong


def validate(loader):
    total_loss, total_correct, seen, hard = 0.0, 0, 0, []
    with torch.no_grad():
        for b, (x, y) in enumerate(loader):
            loss, correct, wrong = eval_step(x, y)
            total_loss += loss.item()
            total_correct += int(correct)
            hard.extend(b * x.shape[0] + i for i in wrong.nonzero().squeeze(1).tolist())
            seen += x.shape[0]
    return total_loss / seen, total_correct / seen, hard


if __name__ == "__main__":
    val = make_val_set()
    loss, acc, hard = validate(val)
    print(f"val loss {loss:.4f} acc {acc:.3f}")
    print(f"hard examples: {hard}")
