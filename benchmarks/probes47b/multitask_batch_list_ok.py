"""Cousin of multitask_batch_dict_keys.py, written the right way: the loader still yields
{task_name: token_ids}, but the training loop hands the compiled encoder step the list of
tensors (`list(batch.values())`), so no task name reaches the compiled function and one
graph serves every task.

Source: the workaround for pytorch/pytorch#151122 (keep the varying dict keys out of the
compiled function's inputs)."""
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
def encode_batch(id_list):
    pooled = []
    for ids in id_list:
        pooled.append(encoder(ids))
    return torch.cat(pooled)


def loader(steps):
    for step in range(steps):
        task = TASKS[step % len(TASKS)]
        yield task, {task: torch.randint(0, VOCAB, (8, 16))}, torch.randint(0, 2, (8,))


for step, (task, batch, labels) in enumerate(loader(10)):
    logits = heads[task](encode_batch(list(batch.values())))
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("final loss:", round(loss.item(), 4))
