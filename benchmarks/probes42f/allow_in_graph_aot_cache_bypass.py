"""Patch-embedding classifier whose patchify helper is marked allow_in_graph.

Users reach for torch._dynamo.allow_in_graph to keep a helper (here a
rearrange-style patchify, as einops did before it was natively supported) as one
node in the Dynamo graph.  AOTAutogradCache only trusts torch / builtin call
targets, so the whole graph bypasses the AOTAutograd cache on every launch:
the second run of this program re-runs AOTAutograd from scratch.
Source: torch/_functorch/_aot_autograd/autograd_cache.py check_node_safe and
test_aot_autograd_cache.py (allow_in_graph / unsafe_marked_cacheable_functions).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch._dynamo.allow_in_graph
def patchify(img, p):
    b, c, h, w = img.shape
    x = img.reshape(b, c, h // p, p, w // p, p)
    x = x.permute(0, 2, 4, 3, 5, 1)
    return x.reshape(b, (h // p) * (w // p), p * p * c)


class TinyViTHead(nn.Module):
    def __init__(self, p=4, c=3, dim=48, n_cls=10):
        super().__init__()
        self.p = p
        self.embed = nn.Linear(p * p * c, dim)
        self.norm = nn.LayerNorm(dim)
        self.mix = nn.Linear(dim, dim)
        self.cls = nn.Linear(dim, n_cls)

    def forward(self, img):
        tokens = self.embed(patchify(img, self.p))
        tokens = tokens + F.gelu(self.mix(self.norm(tokens)))
        return self.cls(tokens.mean(dim=1))


def main():
    torch.manual_seed(0)
    model = TinyViTHead()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    cmodel = torch.compile(model)
    g = torch.Generator().manual_seed(1)
    imgs = torch.randn(64, 3, 16, 16, generator=g)
    labels = torch.randint(0, 10, (64,), generator=g)

    for step in range(6):
        idx = slice((step % 4) * 16, (step % 4) * 16 + 16)
        loss = F.cross_entropy(cmodel(imgs[idx]), labels[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 2 == 1:
            print(f"step {step} loss {loss.item():.4f}")
    with torch.no_grad():
        acc = (model(imgs).argmax(1) == labels).float().mean().item()
    print(f"train acc {acc:.3f}")


if __name__ == "__main__":
    main()
