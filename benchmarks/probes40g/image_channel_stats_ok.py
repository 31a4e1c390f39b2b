# Correct program: dataset-statistics pass over a large float image batch (32 x 3 x 256 x
# 256, 6.3M values): per-channel mean and std, normalization, global average pooling and a
# linear classifier's softmax, compiled. The reductions are over millions of elements, so
# compiled and eager differ only in summation order (float32 rounding, ~1e-7 relative);
# a good tool must not call this a miscompile.
import torch

torch.manual_seed(0)

head = torch.nn.Linear(3, 10)


@torch.compile
def stats_and_predict(images):
    mean = images.mean(dim=(0, 2, 3), keepdim=True)
    std = ((images - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True).sqrt()
    normed = (images - mean) / std
    pooled = normed.mean(dim=(2, 3))
    probs = torch.softmax(head(pooled), dim=1)
    return mean.flatten(), std.flatten(), probs


images = torch.randint(0, 256, (32, 3, 256, 256), dtype=torch.uint8).float() / 255.0
images[:, 0] *= 0.8  # make the channels differ
with torch.no_grad():
    mean, std, probs = stats_and_predict(images)
print("channel mean:", [f"{v:.6f}" for v in mean.tolist()])
print("channel std: ", [f"{v:.6f}" for v in std.tolist()])
print("prob mass of class 0:", f"{probs[:, 0].sum().item():.6f}")
