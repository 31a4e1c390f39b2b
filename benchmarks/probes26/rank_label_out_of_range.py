"""Two gloo ranks train a 10-class classifier; each rank reads its own label file. Rank 1's
shard holds a label 10 (the dataset grew an 11th class the model was not built for)."""
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = nn.Linear(20, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile
def loss_fn(logits, labels):
    return F.cross_entropy(logits, labels, label_smoothing=0.1)


torch.manual_seed(rank)
x = torch.randn(64, 20)
labels = torch.randint(0, 10, (64,))
if rank == 1:
    labels[37] = 10
for step in range(2):
    loss = loss_fn(model(x), labels)
    opt.zero_grad()
    loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad)
    opt.step()
    print(f"rank {rank} step {step} loss {loss.item():.4f}")
dist.destroy_process_group()
