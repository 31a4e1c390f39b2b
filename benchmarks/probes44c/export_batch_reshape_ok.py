"""Export a small patch-token encoder for serving with a dynamic batch dimension.

Correct cousin of export_batch_reshape_specialized.py: the pooling step
reshapes with the runtime batch size (h.shape[0]), so Dim("batch") stays
dynamic and export succeeds.
"""
import torch
import torch.nn as nn
from torch.export import Dim, export

CFG = {"batch_size": 8, "n_patches": 16, "patch_dim": 48, "d_model": 64, "n_classes": 5}


class PatchEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Linear(cfg["patch_dim"], cfg["d_model"])
        self.norm = nn.LayerNorm(cfg["d_model"])
        self.mlp = nn.Sequential(nn.Linear(cfg["d_model"], 128), nn.GELU(), nn.Linear(128, cfg["d_model"]))
        self.head = nn.Linear(cfg["d_model"], cfg["n_classes"])

    def pool(self, h):
        # mean over patches; uses the runtime batch size
        h = h.reshape(h.shape[0], self.cfg["n_patches"], -1)
        return h.mean(dim=1)

    def forward(self, patches):
        h = self.embed(patches)
        h = h + self.mlp(self.norm(h))
        return self.head(self.pool(h))


def train(model, steps=20):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(steps):
        x = torch.randn(CFG["batch_size"], CFG["n_patches"], CFG["patch_dim"])
        y = (x.mean(dim=(1, 2)) > 0).long() % CFG["n_classes"]
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = PatchEncoder(CFG)
    print(f"final train loss {train(model):.4f}")
    model.eval()
    example = torch.randn(CFG["batch_size"], CFG["n_patches"], CFG["patch_dim"])
    batch = Dim("batch", min=1, max=64)
    ep = export(model, (example,), dynamic_shapes={"patches": {0: batch}})
    print("exported graph nodes:", len(ep.graph.nodes))
    for bs in (1, 3, 8):
        out = ep.module()(torch.randn(bs, CFG["n_patches"], CFG["patch_dim"]))
        print(f"serve bs={bs} logits shape {tuple(out.shape)}")


if __name__ == "__main__":
    main()
