"""Multi-task prompt tuning: each task owns a learnable soft prompt (an nn.Parameter)
of its own length; a frozen encoder is shared.  The compiled encode() takes the task's
prompt Parameter as an argument.

Source: pytorch test/dynamo/test_recompiles.py::test_dynamic_shape_parameter_recompile
(nn.Parameter inputs keep static shapes, force_parameter_static_shapes=True by default,
so every new prompt length is a new compile; automatic dynamic never kicks in).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, V = 32, 50


class FrozenEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.mix = nn.Linear(D, D)
        self.cls = nn.Linear(D, 2)
        for p in self.parameters():
            p.requires_grad_(False)


enc = FrozenEncoder().eval()


@torch.compile
def encode(prompt, tokens):
    x = enc.emb(tokens)
    p = prompt.unsqueeze(0).expand(tokens.shape[0], -1, -1)
    h = torch.tanh(enc.mix(torch.cat([p, x], dim=1)))
    return enc.cls(h.mean(dim=1))


# task name -> prompt length (tuned per task, as in the P-tuning papers)
task_lengths = {"sst2": 4, "rte": 6, "mrpc": 8, "qnli": 10}
prompts = {t: nn.Parameter(torch.randn(n, D) * 0.02) for t, n in task_lengths.items()}
opt = torch.optim.Adam(prompts.values(), lr=1e-2)

for epoch in range(2):
    total = 0.0
    for task, prompt in prompts.items():
        tokens = torch.randint(0, V, (8, 12))
        labels = torch.randint(0, 2, (8,))
        logits = encode(prompt, tokens)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} mean loss {total / len(prompts):.4f}")
