# Orthogonal-recurrent RNN: the recurrent matrix is an orthogonal
# parametrization, the unrolled loop runs under parametrize.cached(), and a
# forward pre-hook standardizes the input sequence. Compiled vs eager twin.
import copy
import torch
import torch.nn as nn
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import orthogonal


class OrthoRNN(nn.Module):
    def __init__(self, n_in=3, n_h=8, n_out=2):
        super().__init__()
        self.inp = nn.Linear(n_in, n_h)
        self.rec = orthogonal(nn.Linear(n_h, n_h, bias=False))
        self.out = nn.Linear(n_h, n_out)

    def forward(self, seq):
        h = torch.zeros(seq.shape[0], self.rec.weight.shape[0])
        with parametrize.cached():
            for t in range(seq.shape[1]):
                h = torch.tanh(self.inp(seq[:, t]) + self.rec(h))
        return self.out(h)


def standardize(module, args):
    (seq,) = args
    return ((seq - seq.mean(dim=1, keepdim=True)) / (seq.std(dim=1, keepdim=True) + 1e-5),)


torch.manual_seed(0)
eager = OrthoRNN()
eager.register_forward_pre_hook(standardize)
comp_src = copy.deepcopy(eager)
comp = torch.compile(comp_src)
seq = torch.randn(5, 7, 3)
y = torch.randn(5, 2)
opts = [torch.optim.Adam(m.parameters(), lr=1e-2) for m in (eager, comp_src)]
for step in range(3):
    losses = []
    for m, opt in zip((eager, comp), opts):
        loss = nn.functional.mse_loss(m(seq), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    wdiff = (eager.rec.weight - comp_src.rec.weight).abs().max().item()
    print(f"step {step} loss {losses[0]:.4f} match {abs(losses[0] - losses[1]) < 1e-5} rec weight match {wdiff < 1e-5}")
I = comp_src.rec.weight @ comp_src.rec.weight.T
print("orthogonal", torch.allclose(I, torch.eye(8), atol=1e-4))
