"""pytorch/pytorch#192748 ("[inductor][cudagraphs] SIGSEGV when a buffer allocated inside the
compiled region is passed back as a mutated input", https://github.com/pytorch/pytorch/issues/192748,
open; fix proposed in PR #193294): under mode="reduce-overhead" a state buffer first allocated
inside the compiled forward (state=None) and then passed back in and mutated in place on later
calls kills the process with SIGSEGV on the second call, with no Python traceback;
mode="default" runs fine and cudagraph_mark_step_begin() does not help."""
import torch
import torch.nn as nn

W = 64


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(W, W)

    def forward(self, x, state=None):
        if state is None:
            state = torch.zeros_like(x)
        state.copy_(state + self.lin(x))
        return x + state, state


c = torch.compile(M().cuda().eval(), mode="reduce-overhead")
x = torch.randn(1, W, device="cuda")

with torch.no_grad():
    out, state = c(x)
    for _ in range(5):
        out, state = c(torch.randn(1, W, device="cuda"), state)
torch.cuda.synchronize()
print("finished", out.shape)
