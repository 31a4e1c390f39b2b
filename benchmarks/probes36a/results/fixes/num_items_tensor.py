# Token-level LM loss normalised by the global count of non-padding labels (HF num_items_in_batch).
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = nn.Sequential(nn.Embedding(50, 16), nn.Linear(16, 50))
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile(dynamic=False)
def lm_loss(tokens, labels, num_items):
    logits = model(tokens)
    loss = F.cross_entropy(logits.view(-1, 50), labels.view(-1), ignore_index=-100, reduction="sum")
    return loss / num_items


g = torch.Generator().manual_seed(11 + rank)
for step in range(4):
    tokens = torch.randint(0, 50, (4, 12), generator=g)
    labels = tokens.roll(-1, dims=1)
    lengths = torch.randint(4, 13, (4,), generator=g)
    labels[torch.arange(12) >= lengths[:, None]] = -100  # padding
    count = (labels != -100).sum()
    dist.all_reduce(count)
    loss = lm_loss(tokens, labels, count)
    loss.backward()
    opt.step(); opt.zero_grad()
    print(f"rank {rank} step {step}: num_items {count.item()} loss {loss.item():.4f}")
dist.destroy_process_group()
