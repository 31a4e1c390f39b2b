# Logit soft-capping as a custom op; the cap is annealed every step (Gemma-style softcap).
import torch
import torch.nn as nn


@torch.library.custom_op("probes36c::softcap", mutates_args=())
def softcap(x: torch.Tensor, cap: torch.Tensor) -> torch.Tensor:
    return cap * torch.tanh(x / cap)


@softcap.register_fake
def _(x, cap):
    return torch.empty_like(x)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 10)

    def forward(self, h, cap):
        logits = softcap(self.proj(h), cap)
        return logits.log_softmax(-1)


torch.manual_seed(0)
head = Head()
chead = torch.compile(head)
h = torch.randn(4, 16)
with torch.no_grad():
    for step in range(12):
        cap = 30.0 - 2.0 * step          # anneal the soft cap
        out = chead(h, torch.tensor(cap))
        print(f"step {step} cap {cap}: logp[0,0] {out[0, 0].item():.5f}")
