# Evidence, not a blind case: the compiled optimizer step of acc_func_transforms_opt alone. Plain python:
# 'w0 after 1 step 0.0541'; under compdiag run --check-accuracy: -0.1459 (the SGD update applied 3 times).
import torch
torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(6) * 0.1)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
@torch.compile
def opt_step():
    opt.step()
print("w0 before", round(w[0].item(), 5))
w.grad = torch.ones(6)
opt_step()
print("w0 after 1 step", round(w[0].item(), 5))
