"""Text classifier with a compiled AdamW step; weight-decay groups built from Python sets.

configure_optimizers() follows minGPT's recipe (split parameter names into `decay` /
`no_decay` sets) but drops its final `sorted(...)`: the groups are listed in set order.
Set order of str keys depends on PYTHONHASHSEED, which is random per process, so the
compiled optimizer step sees its parameters in a different order on every run.
Source: karpathy/minGPT model.py configure_optimizers; PyTorch's compiled-optimizer recipe
(torch.compile around opt.step()).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class BagClassifier(nn.Module):
    def __init__(self, vocab=1000, dim=32, hidden=64, classes=4):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, tokens):
        h = self.norm(self.emb(tokens))
        return self.fc2(F.gelu(self.fc1(h)))


def configure_optimizers(model, lr=3e-3, weight_decay=0.1):
    decay, no_decay = set(), set()
    for name, p in model.named_parameters():
        if name.endswith("bias") or name.startswith("norm."):
            no_decay.add(name)
        else:
            decay.add(name)
    param_dict = dict(model.named_parameters())
    groups = [
        {"params": [param_dict[n] for n in decay], "weight_decay": weight_decay},
        {"params": [param_dict[n] for n in no_decay], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))


def main():
    model = BagClassifier()
    opt = configure_optimizers(model)

    @torch.compile(fullgraph=False)
    def opt_step():
        opt.step()

    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, 1000, (64, 12), generator=g)
    labels = torch.randint(0, 4, (64,), generator=g)
    for step in range(6):
        loss = F.cross_entropy(model(tokens), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt_step()
        print(f"step {step} loss {loss.item():.4f}")
    with torch.no_grad():
        acc = (model(tokens).argmax(-1) == labels).float().mean().item()
    print(f"train acc {acc:.3f}")


if __name__ == "__main__":
    main()
