# MAML-style inner loop: adapt a copy of the weights with functional_call, compiled loss.
import torch
import torch.nn as nn
from torch.func import functional_call

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))


def task_loss(params, x, y):
    pred = functional_call(net, params, (x,))
    return ((pred - y) ** 2).mean()


compiled_loss = torch.compile(task_loss)

x_s, y_s = torch.randn(10, 4), torch.randn(10, 1)   # support set
x_q, y_q = torch.randn(10, 4), torch.randn(10, 1)   # query set
inner_lr = 0.1

params = {k: v.detach().clone().requires_grad_() for k, v in net.named_parameters()}
for step in range(4):
    loss_c = compiled_loss(params, x_s, y_s)
    loss_e = task_loss(params, x_s, y_s)
    grads = torch.autograd.grad(loss_e, list(params.values()))
    params = {k: (v - inner_lr * g).detach().requires_grad_()
              for (k, v), g in zip(params.items(), grads)}
    print(f"inner step {step}: compiled {loss_c.item():.5f} eager {loss_e.item():.5f}")

q_c = compiled_loss(params, x_q, y_q).item()
q_e = task_loss(params, x_q, y_q).item()
print(f"query loss after adaptation: compiled {q_c:.5f} eager {q_e:.5f}")
print(f"max |compiled - eager| = {abs(q_c - q_e):.5f}")
