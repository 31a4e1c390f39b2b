"""pytorch/pytorch#150114: torch.linalg.cond of a singular matrix (arctan of ones(2, 2)): eager prints 3.7e7, Inductor inf."""
import torch
class SimpleModel(torch.nn.Module):
    def forward(self, x):
        x = torch.arctan(x)
        x = torch.linalg.cond(x)
        return x
with torch.no_grad():
    out = torch.compile(SimpleModel())(torch.ones(2, 2))
print(out)
