# Temporal graph network memory update (TGN-style): each event (src -> dst, t) produces a
# message; the node memory of every destination is overwritten with "its" message via
# advanced-index assignment, events sorted by time so the user expects the latest to win.
import torch
import torch.nn as nn

torch.manual_seed(0)
N, D, E = 30, 16, 200


class Memory(nn.Module):
    def __init__(self):
        super().__init__()
        self.msg = nn.Linear(2 * D + 1, D)
        self.upd = nn.GRUCell(D, D)

    def forward(self, mem, src, dst, t):
        m = torch.tanh(self.msg(torch.cat([mem[src], mem[dst], t[:, None]], 1)))
        ev = torch.arange(dst.size(0))
        li = torch.full((mem.size(0),), -1).scatter_reduce(0, dst, ev, 'amax', include_self=False)
        last = torch.where((li >= 0)[:, None], m[li.clamp(min=0)], 0.0)                                   # latest message per destination node
        touched = torch.zeros(mem.size(0), dtype=torch.bool)
        touched[dst] = True
        new = self.upd(last, mem)
        return torch.where(touched[:, None], new, mem)


model = Memory().eval()
cmodel = torch.compile(model)
src = torch.randint(0, N, (E,))
dst = torch.randint(0, N, (E,))
t = torch.sort(torch.rand(E)).values                   # events in time order
with torch.no_grad():
    mem_e = torch.zeros(N, D)
    mem_c = torch.zeros(N, D)
    for step in range(3):
        mem_e = model(mem_e, src, dst, t + step)
        mem_c = cmodel(mem_c, src, dst, t + step)
        print(f"step {step} eager {mem_e.sum().item():.4f} compiled {mem_c.sum().item():.4f} "
              f"max diff {(mem_e - mem_c).abs().max().item():.4f}")
