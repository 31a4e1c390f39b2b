"""pytorch/pytorch#132929 ("Compile + torch.autograd.grad returns no gradients",
https://github.com/pytorch/pytorch/issues/132929): autograd.grad of a compiled model's output
with respect to its intermediate output (`latents`) works in eager and fails once the model is
compiled (its input made smaller here)."""
import torch
from torch import nn


def grad_loss(latents, targets):
    grads = torch.autograd.grad(outputs=[targets.sum()], inputs=[latents], create_graph=True)[0]
    return grads.mean()


class network(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = torch.nn.Conv2d(3, 4, 1, 1)
        self.up = torch.nn.Conv2d(4, 3, 1, 1)

    def forward(self, x):
        z = self.down(x)
        dec = self.up(z)
        return dec, z


def run(model):
    data = torch.randn(4, 3, 32, 32)
    output, latents = model(data)
    loss = grad_loss(latents=latents, targets=output)
    (output.mean() + loss).backward()


model = network()
run(model)
print("eager ok")
run(torch.compile(model))
print("compiled ok")
