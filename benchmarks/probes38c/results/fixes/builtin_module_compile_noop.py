import torch, torch.nn as nn
l = nn.Sequential(nn.Linear(4, 4), nn.ReLU()); l.compile()
l(torch.randn(2, 4))
print("Module.compile on nn.Sequential:", dict(torch._dynamo.utils.counters["stats"]))
torch._dynamo.utils.counters.clear()
c = torch.compile(nn.Sequential(nn.Linear(4, 4), nn.ReLU())); c(torch.randn(2, 4))
print("torch.compile(nn.Sequential):", dict(torch._dynamo.utils.counters["stats"]))
