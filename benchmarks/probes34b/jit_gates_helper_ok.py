import torch
import torch.nn as nn

torch.manual_seed(0)


@torch.jit.script
def lstm_gates(gates: torch.Tensor, c: torch.Tensor):
    i, f, g, o = gates.chunk(4, 1)
    i = torch.sigmoid(i)
    f = torch.sigmoid(f)
    g = torch.tanh(g)
    o = torch.sigmoid(o)
    c_new = f * c + i * g
    h_new = o * torch.tanh(c_new)
    return h_new, c_new


class FusedLSTMCell(nn.Module):
    def __init__(self, n_in, n_hid):
        super().__init__()
        self.ih = nn.Linear(n_in, 4 * n_hid)
        self.hh = nn.Linear(n_hid, 4 * n_hid, bias=False)

    def forward(self, x, h, c):
        return lstm_gates(self.ih(x) + self.hh(h), c)


cell = FusedLSTMCell(16, 32)
head = nn.Linear(32, 4)
step = torch.compile(cell)
opt = torch.optim.Adam(list(cell.parameters()) + list(head.parameters()), lr=1e-2)

for it in range(4):
    x = torch.randn(8, 12, 16)
    y = torch.randint(0, 4, (8,))
    h = torch.zeros(8, 32)
    c = torch.zeros(8, 32)
    for t in range(x.size(1)):
        h, c = step(x[:, t], h, c)
    loss = nn.functional.cross_entropy(head(h), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"iter {it} loss {loss.item():.4f}")
