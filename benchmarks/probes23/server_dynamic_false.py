"""An inference server loop that batches whatever requests are waiting and calls a model
compiled with dynamic=False (to "avoid dynamic-shape overhead"): every new batch size is a new
graph until the recompile limit leaves the model in eager (the pattern of
NVIDIA/TensorRT-LLM#6142, "recompile_limit (8)" hit by one compile per batch size)."""
import collections
import torch
import torch.nn as nn

torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 1))

    def forward(self, feats):
        return torch.sigmoid(self.net(feats)).squeeze(-1)


model = torch.compile(Scorer().eval(), dynamic=False)
queue = collections.deque(torch.randn(16) for _ in range(80))
arrivals = [3, 5, 2, 7, 4, 6, 1, 8, 9, 10, 11, 12]


def serve_once(n):
    reqs = [queue.popleft() for _ in range(min(n, len(queue)))]
    batch = torch.stack(reqs)
    with torch.no_grad():
        scores = model(batch)
    return scores.tolist()


served = 0
for n in arrivals:
    served += len(serve_once(n))
print("served", served)
