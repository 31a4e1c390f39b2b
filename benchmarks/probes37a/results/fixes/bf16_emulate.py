# Pure-bf16 training on the CPU (weights, activations, grads and momentum buffers all
# bfloat16, to halve memory), with the optimizer step compiled; a one-off check runs
# the same loop with the eager step and compares.
import torch
torch._inductor.config.emulate_precision_casts = True
import torch.nn as nn


def train(compile_step):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1)).to(torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    step = torch.compile(opt.step) if compile_step else opt.step
    x = torch.randn(64, 8, dtype=torch.bfloat16)
    y = torch.randn(64, 1, dtype=torch.bfloat16)
    losses = []
    for it in range(30):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        step()
        losses.append(loss.item())
    return losses, [p.detach().float() for p in model.parameters()]


eager_losses, eager_w = train(False)
comp_losses, comp_w = train(True)
print("final loss eager", eager_losses[-1], "compiled", comp_losses[-1])
print("max |w_compiled - w_eager|", max((a - b).abs().max().item() for a, b in zip(eager_w, comp_w)))
print("steps with different loss:", sum(a != b for a, b in zip(eager_losses, comp_losses)))
