"""No problem (GPU): the cousin of cg_kept_outputs_list, keeping `out.clone()` of each
replay's output, so every kept tensor holds its own batch's values (the sums differ)."""
import torch


@torch.compile(mode="reduce-overhead")
def score(x, w):
    return torch.relu(x * w + 1).sum(dim=1)


w = torch.randn(32, device="cuda")
batches = [torch.randn(16, 32, device="cuda") for _ in range(6)]


def evaluate():
    with torch.no_grad():
        for _ in range(3):  # warm-up: compile, record, first replay
            score(batches[0], w)
        kept = []
        for xb in batches:
            out = score(xb, w)
            kept.append(out.clone())
        return [round(t.sum().item(), 2) for t in kept]


print(evaluate())
