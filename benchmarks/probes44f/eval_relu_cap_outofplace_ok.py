"""Correct cousin of eval_relu_cap_copy_inplace: the cap is applied out of place.

Source: pytorch/pytorch#158561 (fix attempt PR #187596, 2026-06): the forward
mutates a ReLU output in place with copy_(); eager forward is fine (only a
backward would complain), but AOTAutograd traces the backward ahead of time.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class CappedMLP(nn.Module):
    def __init__(self, d_in=16, d_hidden=32, n_cls=4, cap=0.5):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, n_cls)
        self.cap = cap

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        h = h.clamp(max=self.cap)  # cap activations (out of place)
        return self.fc2(h)


def make_batches(n_batches=4, bs=8, d_in=16):
    g = torch.Generator().manual_seed(1)
    for _ in range(n_batches):
        x = torch.randn(bs, d_in, generator=g)
        y = torch.randint(0, 4, (bs,), generator=g)
        yield x, y


def evaluate(model, batches):
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    for x, y in batches:  # note: no torch.no_grad() here
        logits = model(x)
        loss_sum += nn.functional.cross_entropy(logits, y).item()
        correct += (logits.argmax(1) == y).sum().item()
        total += y.numel()
    return loss_sum / 4, correct / total


def main():
    model = CappedMLP()
    cmodel = torch.compile(model)
    loss, acc = evaluate(cmodel, make_batches())
    print(f"eval loss {loss:.4f}")
    print(f"eval acc {acc:.3f}")


if __name__ == "__main__":
    main()
