"""Recompile: probes47b multitask_batch_dict_keys, after pytorch/pytorch#151122. A multitask
loader yields a one-entry dict `{task: ids}` whose key changes every step; the compiled encoder
loops over `.items()` but never reads the key, yet Dynamo guards which key is at each position:
a graph per task. Passing the values (a list) is one graph."""
import torch


@torch.compile(backend="eager")
def encode(batch):
    pooled = []
    for task, ids in batch.items():  # <- diagnosis
        pooled.append(ids.float().mean(1))
    return torch.cat(pooled)


for task in ("sst2", "mnli", "qqp", "qnli", "sst2"):
    out = encode({task: torch.randint(0, 9, (4, 6))})
print(out.shape)
