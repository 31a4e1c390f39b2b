"""pytorch/pytorch#189803: reciprocal(elu(x) + exp(elu(x))) has catastrophic cancellation near zero; Inductor and eager differ there."""
import torch
import torch.nn.functional as F
class BugModule(torch.nn.Module):
    def forward(self, x):
        elu_val = F.elu(x, alpha=1.24)
        exp_elu = torch.exp(elu_val)
        v = torch.add(elu_val, exp_elu)
        return torch.reciprocal(v)
torch.manual_seed(42)
x = torch.randn(24, 57, 37)
with torch.no_grad():
    out = torch.compile(BugModule())(x)
