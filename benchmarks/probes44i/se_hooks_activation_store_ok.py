"""Feature-monitoring for a small CNN: forward hooks write each block's activation
statistics into a dict (fixed keys) and bump a tensor hook counter, the model stores its
last pooled feature on self, builds a parameter-free module inside forward, and sums
block outputs through a generator.  The loop saves the monitored stats to a JSON
lines file per step.  Correct program: compiles without breaks; nothing to flag."""
import json, os
import torch
import torch.nn as nn

OUT = os.environ.get("PROBE_OUT", "probe_out")
os.makedirs(OUT, exist_ok=True)
STATS = {f"block{i}": torch.zeros(()) for i in range(3)}   # fixed keys, filled by hooks
HOOK_CALLS = torch.zeros((), dtype=torch.long)               # tensor counter: no recompiles


def make_hook(name):
    def hook(mod, inp, out):
        HOOK_CALLS.add_(1)
        STATS[name] = out.detach().abs().mean()
    return hook


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.blocks = nn.ModuleList([nn.Conv2d(8, 8, 3, padding=1) for _ in range(3)])
        self.head = nn.Linear(8, 4)
        self.last_feat = None

    def forward(self, x):
        h = torch.relu(self.stem(x))
        h = h + sum(torch.relu(b(h)) for b in self.blocks)   # generator consumed in forward
        pool = nn.AdaptiveAvgPool2d(1)                        # module built inside forward
        feat = pool(h).flatten(1)
        self.last_feat = feat.detach()
        return self.head(feat)


def main():
    torch.manual_seed(2)
    model = SmallCNN()
    for i, b in enumerate(model.blocks):
        b.register_forward_hook(make_hook(f"block{i}"))
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    imgs = torch.randn(24, 3, 16, 16)
    labels = torch.randint(0, 4, (24,))
    with open(os.path.join(OUT, "act_stats.jsonl"), "w") as f:
        for step in range(6):
            sl = slice((step % 3) * 8, (step % 3) * 8 + 8)
            logits = cmodel(imgs[sl])
            loss = nn.functional.cross_entropy(logits, labels[sl])
            opt.zero_grad(); loss.backward(); opt.step()
            rec = {k: round(v.item(), 5) for k, v in sorted(STATS.items())}
            rec["step"] = step
            rec["feat_norm"] = round(model.last_feat.norm().item(), 5)
            f.write(json.dumps(rec) + "\n")
            print(f"step {step} loss {loss.item():.5f} " + " ".join(f"{k}={v}" for k, v in rec.items() if k.startswith("block")))
    print("hook_calls", int(HOOK_CALLS), "keys", sorted(STATS))


if __name__ == "__main__":
    main()
