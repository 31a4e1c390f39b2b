"""pytorch/pytorch#133303 ("Graph break when there is backward hook registered for sub module",
https://github.com/pytorch/pytorch/issues/133303): a full backward hook registered on a submodule
makes Dynamo break the graph where that submodule is called ("Module-level backwards hooks require
compiled autograd"); under fullgraph=True the compile fails there. Unlike set4's
backward_pre_hook_after_compile (a hook added after the compile is silently ignored), the hook
here exists before the first compile. Written as a classifier whose head logs the norm of its
output gradient during training.
"""
import torch
import torch.nn as nn

grad_norms = []


def log_grad_norm(module, grad_input, grad_output):
    grad_norms.append(grad_output[0].norm().item())


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU())
        self.head = nn.Linear(32, 4)
        self.head.register_full_backward_hook(log_grad_norm)

    def forward(self, x):
        h = self.body(x)
        return self.head(h)


model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
compiled = torch.compile(model, fullgraph=True)
x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("head grad norms", grad_norms)
