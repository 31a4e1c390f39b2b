"""Speech-command classifier (1-D conv front end + transformer-style MLP blocks), served on
CPU. To shave latency the team swaps every exact GELU for its tanh approximation with an
Inductor post-grad pass, registered through torch._inductor.config (as in PyTorch's
test/inductor/test_custom_post_grad_passes.py). The service restarts often; warm starts are
expected to come from the default on-disk Inductor cache."""
import sys
import time

import torch
import torch.nn as nn
import torch._inductor.config as inductor_config

torch.manual_seed(0)
torch.set_num_threads(1)
aten = torch.ops.aten


def gelu_to_tanh(graph: torch.fx.Graph) -> None:
    """Post-grad pass: aten.gelu(x) -> aten.gelu(x, approximate='tanh')."""
    for node in graph.find_nodes(op="call_function", target=aten.gelu.default):
        node.kwargs = {**node.kwargs, "approximate": "tanh"}


inductor_config.post_grad_custom_post_pass = gelu_to_tanh


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class KeywordSpotter(nn.Module):
    def __init__(self, n_mels=40, d=96, n_cls=12):
        super().__init__()
        self.front = nn.Sequential(nn.Conv1d(n_mels, d, 5, stride=2, padding=2), nn.GELU())
        self.blocks = nn.Sequential(*[Block(d) for _ in range(3)])
        self.head = nn.Linear(d, n_cls)

    def forward(self, mels):                        # (B, n_mels, T)
        h = self.front(mels).transpose(1, 2)        # (B, T/2, d)
        return self.head(self.blocks(h).mean(1))


model = KeywordSpotter().eval()
classify = torch.compile(model)
clips = torch.randn(16, 40, 98, generator=torch.Generator().manual_seed(3))

with torch.no_grad():
    t0 = time.perf_counter()
    logits = classify(clips)
    first_ms = (time.perf_counter() - t0) * 1e3
    ref = model(clips)                              # exact GELU, eager

print("predicted classes:", logits.argmax(-1).tolist())
print("agrees with exact-GELU eager:", bool((logits.argmax(-1) == ref.argmax(-1)).all()))
print(f"first call: {first_ms:.0f} ms", file=sys.stderr)
