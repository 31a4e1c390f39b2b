import torch
CNT = torch.zeros((), dtype=torch.long)
@torch.compile
def f(x):
    CNT.add_(1)
    return (x * 2).sin()
for i in range(5):
    y = f(torch.ones(64))
print("count", int(CNT), round(y.sum().item(), 4))
