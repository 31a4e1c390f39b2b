# Tiny LM built from a config: a ModuleDict of string-keyed feature encoders,
# optional submodules left as None, output head tied to the embedding,
# compiled in place with Module.compile(); a checkpoint is loaded after the
# first compiled call, then eager and compiled copies train side by side.
import copy
import torch
import torch.nn as nn

CFG = {"vocab": 20, "dim": 12, "feats": {"pos": 6, "seg": 2}, "norm": True, "dropout": None}


class TinyLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg["vocab"], cfg["dim"])
        self.feats = nn.ModuleDict({k: nn.Embedding(n, cfg["dim"]) for k, n in cfg["feats"].items()})
        self.norm = nn.LayerNorm(cfg["dim"]) if cfg["norm"] else None
        self.drop = nn.Dropout(cfg["dropout"]) if cfg["dropout"] else None
        self.mix = nn.Linear(cfg["dim"], cfg["dim"])
        self.head = nn.Linear(cfg["dim"], cfg["vocab"], bias=False)
        self.head.weight = self.emb.weight

    def forward(self, ids, extra):
        h = self.emb(ids)
        for name, enc in self.feats.items():
            h = h + enc(extra[name])
        if self.norm is not None:
            h = self.norm(h)
        if self.drop is not None:
            h = self.drop(h)
        return self.head(torch.tanh(self.mix(h)))


torch.manual_seed(0)
eager = TinyLM(CFG)
comp = copy.deepcopy(eager)
comp.compile()
ids = torch.randint(0, 20, (4, 6))
extra = {"pos": torch.arange(6).expand(4, 6), "seg": torch.randint(0, 2, (4, 6))}
print("first call diff", (comp(ids, extra) - eager(ids, extra)).abs().max().item() < 1e-5)
ckpt = {k: v + 0.01 * torch.randn_like(v) for k, v in eager.state_dict().items()}
eager.load_state_dict(ckpt)
comp.load_state_dict(ckpt)
tgt = torch.randint(0, 20, (4, 6))
opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (eager, comp)]
for step in range(3):
    losses = []
    for m, opt in zip((eager, comp), opts):
        loss = nn.functional.cross_entropy(m(ids, extra).flatten(0, 1), tgt.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    same = all(torch.allclose(a, b, atol=1e-5) for a, b in zip(eager.parameters(), comp.parameters()))
    print(f"step {step} loss {losses[0]:.4f} match {abs(losses[0] - losses[1]) < 1e-5} params match {same}")
print("tied", comp.head.weight is comp.emb.weight)
