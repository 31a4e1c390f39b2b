"""pytorch/pytorch#103990 ("[Inductor] Freezing Add support for Caching Parameter
Conversions", https://github.com/pytorch/pytorch/issues/103990, open: "After freezing, weights
can no longer be updated") and PR #100652 ("Inductor Freezing": "Checking version_counter of
constant folded params nyi"): with `torch._inductor.config.freezing = True`, Inductor folds the
parameters into the compiled graph as constants; updating them in place afterwards
(load_state_dict copies into the same tensors, so no guard fails and nothing recompiles) leaves
the compiled model computing with the old weights. Written as a user's CPU inference service
that hot-swaps fine-tuned weights into the running model.
"""
import copy

import torch

torch._inductor.config.freezing = True


class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Linear(8, 16)
        self.head = torch.nn.Linear(16, 3)

    def forward(self, x):
        h = torch.relu(self.embed(x))
        return self.head(h).softmax(dim=-1)


torch.manual_seed(0)
model = Scorer().eval()
serve = torch.compile(model)
batch = torch.randn(4, 8)
with torch.no_grad():
    print("v1 scores", serve(batch)[0].tolist())
    tuned = copy.deepcopy(model)
    for p in tuned.parameters():
        p.add_(0.3 * torch.randn_like(p))
    model.load_state_dict(tuned.state_dict())  # hot swap: same tensors, new values
    print("v2 scores", serve(batch)[0].tolist())
