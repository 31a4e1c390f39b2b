"""CPU evaluation under bfloat16 autocast and inference_mode: a two-layer classifier head
written as a function of its weights, returning the loss and the number of correct
predictions; plus a no_grad feature-norm helper."""
import torch
import torch.nn.functional as F

torch.manual_seed(0)
W1 = torch.randn(64, 128) / 8
B1 = torch.zeros(128)
W2 = torch.randn(128, 10) / 11


@torch.compile
def evaluate(x, labels):
    h = F.gelu(x @ W1 + B1) * 1.5
    logits = h @ W2
    loss = F.cross_entropy(logits, labels)
    correct = (logits.argmax(-1) == labels).sum()
    return loss, correct


@torch.no_grad()
@torch.compile
def feature_norm(x):
    return torch.linalg.vector_norm(x, dim=-1).mean()


total_loss, total_correct = 0.0, 0
with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
    for _ in range(3):
        x = torch.randn(256, 64)
        labels = torch.randint(0, 10, (256,))
        loss, correct = evaluate(x, labels)
        total_loss += loss.item()
        total_correct += int(correct)
print(f"eval loss {total_loss / 3:.3f} correct {total_correct}/768")
print(f"feature norm {feature_norm(torch.randn(32, 64)).item():.4f}")
