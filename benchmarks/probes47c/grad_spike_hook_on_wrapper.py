"""Loss-spike guard fed by a full backward hook on the compiled model (blind probe 47c).

After pytorch/pytorch#91665 ("Support forward hooks with torch.compile": "None of forward,
forward_pre or backward hooks appear to fire on the compiled module") and #117265 / #115750
(backward hooks silently ignored under torch.compile). A training loop watches the gradient of
the logits with `register_full_backward_hook` and skips the optimizer step when that gradient
spikes. The hook is registered on what torch.compile returned. torch 2.13 runs the wrapper's
forward hooks and backward pre-hooks, but OptimizedModule.__setattr__ forwards the
`_is_full_backward_hook = True` flag that register_full_backward_hook sets to the original module,
so the wrapper's own hook is neither a full nor a legacy hook and never runs: the guard sees no
gradient, never skips a step, and the log says 0 of 12 steps were measured (eager: 12 of 12).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 64), nn.GELU())
        self.head = nn.Linear(64, 5)

    def forward(self, x):
        return self.head(self.body(x))


model = torch.compile(MLP())
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
grad_norms = []


def record_logit_grad(module, grad_input, grad_output):
    grad_norms.append(grad_output[0].norm().item())


model.register_full_backward_hook(record_logit_grad)

x = torch.randn(64, 32)
y = torch.randint(0, 5, (64,))
skipped = 0
for step in range(12):
    weights = torch.full((64,), 40.0 if step == 7 else 1.0)  # one batch with broken sample weights
    loss = (F.cross_entropy(model(x), y, reduction="none") * weights).mean()
    opt.zero_grad()
    loss.backward()
    history = grad_norms[:-1]
    if grad_norms and history and grad_norms[-1] > 3 * (sum(history) / len(history)):
        skipped += 1
        continue
    opt.step()
print(f"logit-gradient norms measured on {len(grad_norms)} of 12 steps, {skipped} step(s) skipped")
print(f"final loss {loss.item():.4f}")
