"""Auto-contrast preprocessing for uint8 grayscale thumbnails before a tiny CNN.

Correct cousin: the pixels are widened to int32 before the min/max.  Source:
pytorch/pytorch#191499 (Inductor CPU returns 0 for uint8/int8 min/amin reductions
of 16 or more elements).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class TinyCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.head(x.mean(dim=(2, 3)))


def autocontrast(img_u8):
    flat = img_u8.flatten(1).to(torch.int32)
    lo = flat.amin(dim=1)
    hi = flat.amax(dim=1)
    lo = lo.float().view(-1, 1, 1, 1)
    hi = hi.float().view(-1, 1, 1, 1)
    x = img_u8.float().unsqueeze(1)
    return (x - lo) / (hi - lo).clamp_min(1.0), lo.flatten()


def classify(model, img_u8):
    x, lo = autocontrast(img_u8)
    return model(x).softmax(dim=-1), lo


def main():
    model = TinyCNN().eval()
    step = torch.compile(classify)
    with torch.no_grad():
        for i in range(3):
            imgs = torch.randint(30 + 10 * i, 220, (6, 12, 12), dtype=torch.uint8)
            probs, lo = step(model, imgs)
            print(f"batch {i}: black points {lo.int().tolist()}  "
                  f"top class {probs.argmax(-1).tolist()}  p0 {probs[:, 0].mean().item():.4f}")


if __name__ == "__main__":
    main()
