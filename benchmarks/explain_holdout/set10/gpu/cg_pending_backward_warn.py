"""pytorch/pytorch#176846 ('"pending uninvoked backwards" warning remediation instructions
incorrect', https://github.com/pytorch/pytorch/issues/176846, open; PR #176865 rewords the warning):
torch.func.grad_and_value over a functional_call of a tiny model, compiled with
mode="reduce-overhead" and called once per step. The parameters require grad, so each call's
outputs still carry an uncalled backward, and from the second step CUDA-graph trees cannot start
a new generation: "UserWarning: Unable to hit fast path of CUDAGraphs because of pending,
uninvoked backwards. Consider running with torch.no_grad() or using
torch.compiler.cudagraph_mark_step_begin() before each model invocation" (the issue's case 1,
"warning fires on step 2"; its point is that torch.no_grad() does not help here).

Why it should still reproduce on torch 2.11: the warning is by design (cudagraph_trees'
check_warn_on_unable_to_start_executing, since 2023); PR #176865 (March 2026) only changes its
words to "outputs from a previous step still require backward", as in 2.13's source."""
import torch
import torch.nn as nn
from torch.func import functional_call, grad_and_value

DEVICE = torch.device("cuda")


class TinyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1, device=DEVICE)

    def forward(self, x):
        return self.fc(x).sum()


model = TinyModel()
params = dict(model.named_parameters())
buffers = dict(model.named_buffers())


def loss_fn(p, b, x):
    return functional_call(model, (p, b), (x,))


step = torch.compile(grad_and_value(loss_fn), mode="reduce-overhead")
for i in range(5):
    grads, loss = step(params, buffers, torch.randn(4, 8, device=DEVICE))
    print(i, loss.item())
torch.cuda.synchronize()
