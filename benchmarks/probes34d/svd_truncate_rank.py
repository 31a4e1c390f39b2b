import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                      nn.Linear(128, 10))
with torch.no_grad():
    for layer in model:
        if isinstance(layer, nn.Linear):
            low = torch.randn(layer.out_features, 12) @ torch.randn(12, layer.in_features)
            layer.weight.copy_(low / 12 + 0.01 * torch.randn_like(layer.weight))


@torch.compile
def compress(weight, rtol=0.05):
    U, S, Vh = torch.linalg.svd(weight, full_matrices=False)
    rank = int((S > rtol * S[0]).sum())
    approx = (U[:, :rank] * S[:rank]) @ Vh[:rank]
    rel_err = (approx - weight).norm() / weight.norm()
    return approx, rank, rel_err


x = torch.randn(256, 64)
reference = model(x)
with torch.no_grad():
    for i, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            approx, rank, rel_err = compress(layer.weight)
            layer.weight.copy_(approx)
            print(f"layer {i}: {tuple(layer.weight.shape)} kept rank {rank}, "
                  f"relative error {rel_err.item():.4f}")
    drift = (model(x) - reference).abs().max()
print(f"max output change after compression: {drift.item():.4f}")
