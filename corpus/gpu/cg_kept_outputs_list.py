"""CUDA graphs (runtime, GPU): outputs kept across calls, silently overwritten. An eval loop
under mode="reduce-overhead" keeps every batch's output in a list. After the warm-up and the
recording, each call replays the graph into the same static memory and torch raises nothing
(only a new recording poisons old outputs: pytorch#122192), so every kept tensor holds the
last batch's values and the printed sums are all equal. The fix: keep `out.clone()`."""
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
            out = score(xb, w)  # <- diagnosis
            kept.append(out)
        return [round(t.sum().item(), 2) for t in kept]


print(evaluate())
