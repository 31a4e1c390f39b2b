"""Multi-task fine-tuning with a shared text encoder. The data loader samples one task per
step (round-robin) and yields the batch as {task_name: token_ids}; the compiled encoder step
takes that dict and iterates over it. Every new task name is a new compile.

Source: pytorch/pytorch#151122 ("Avoid guarding on ids of optional dictionary tensor
values", 2025-04, open): iterating a dict argument with .items() guards on its key value
(`list(dict.keys(x))[0] == 10`), so a dict with another key recompiles even though the
graph does not depend on the key."""
import torch
import torch.nn as nn

torch.manual_seed(0)
TASKS = ["sst2", "mnli", "qqp", "qnli", "rte"]
VOCAB, DIM = 1000, 64


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        layer = nn.TransformerEncoderLayer(DIM, nhead=4, dim_feedforward=128, batch_first=True)
        self.body = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)

    def forward(self, ids):
        return self.body(self.emb(ids)).mean(1)


encoder = Encoder()
heads = nn.ModuleDict({t: nn.Linear(DIM, 2) for t in TASKS})
opt = torch.optim.AdamW(list(encoder.parameters()) + list(heads.parameters()), lr=1e-3)


@torch.compile
def encode_batch(batch):
    pooled = []
    for task, ids in batch.items():
        pooled.append(encoder(ids))
    return torch.cat(pooled)


def loader(steps):
    for step in range(steps):
        task = TASKS[step % len(TASKS)]
        yield task, {task: torch.randint(0, VOCAB, (8, 16))}, torch.randint(0, 2, (8,))


for step, (task, batch, labels) in enumerate(loader(10)):
    logits = heads[task](encode_batch(batch))
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("final loss:", round(loss.item(), 4))
