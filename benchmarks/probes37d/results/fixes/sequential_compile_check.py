import torch, torch.nn as nn
s = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 4)); s.compile()
print(s._compiled_call_impl)
s(torch.randn(2, 4))
class My(nn.Module):
    def __init__(s): super().__init__(); s.l = nn.Linear(4, 4)
    def forward(s, x): return s.l(x).relu()
m = My(); m.compile(); m(torch.randn(2, 4))
