# Average the loss over ranks inside the compiled step, then backward through it.
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))


def train_loss(x, y):
    loss = F.mse_loss(model(x), y)
    dist.all_reduce(loss)  # global mean loss: same value printed on every rank
    return loss / world


compiled_loss = torch.compile(train_loss)
g = torch.Generator().manual_seed(100 + rank)
x, y = torch.randn(32, 8, generator=g), torch.randn(32, 1, generator=g)

grads = {}
for name, fn in [("eager", train_loss), ("compiled", compiled_loss)]:
    model.zero_grad()
    loss = fn(x, y)
    loss.backward()
    grads[name] = [p.grad.clone() for p in model.parameters()]
    print(f"rank {rank} {name}: loss {loss.item():.5f} "
          f"grad-norm {torch.cat([g.flatten() for g in grads[name]]).norm():.5f}")

diff = max((a - b).abs().max().item() for a, b in zip(grads["eager"], grads["compiled"]))
print(f"rank {rank} max |grad eager - grad compiled| = {diff:.5f}")
dist.destroy_process_group()
