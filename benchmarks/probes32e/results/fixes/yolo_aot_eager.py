import torch
import torch.nn as nn

torch.manual_seed(0)


class Focus(nn.Module):
    """Space-to-depth stem: every 2x2 block of pixels becomes 4 channels."""

    def __init__(self, c_in=3, c_out=16):
        super().__init__()
        self.conv = nn.Conv2d(c_in * 4, c_out, 3, padding=1)

    def forward(self, x):
        b, c, h, w = x.shape
        x = x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 1, 3, 5, 2, 4)
        x = x.reshape(b, c * 4, h // 2, w // 2)
        return torch.relu(self.conv(x))


class TinyYolo(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.stem = Focus()
        self.body = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
        self.pred = nn.Conv2d(32, 5 + num_classes, 1)

    def forward(self, images):
        out = self.pred(self.body(self.stem(images)))
        return out[:, 4], out[:, 5:]


model = TinyYolo()
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.05)
# multi-scale training: each batch at a different input size
for step, (h, w) in enumerate([(128, 160), (96, 128), (160, 224), (128, 128)]):
    images = torch.rand(4, 3, h, w)
    obj_logits, cls_logits = compiled(images)
    obj_target = (torch.rand_like(obj_logits) > 0.9).float()
    loss = nn.functional.binary_cross_entropy_with_logits(obj_logits, obj_target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} {h}x{w}: grid {tuple(obj_logits.shape[1:])}, loss {loss.item():.4f}")
