# YOLO-style multi-scale training: every step the model's input size is changed
# (model.img_size = random choice of a multiple of 4), and the model resizes its input
# batch to that size with F.interpolate before the stem.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch._dynamo.config.allow_unspec_int_on_nn_module = True


class MultiScaleNet(nn.Module):
    def __init__(self, img_size=32, n_cls=6):
        super().__init__()
        self.img_size = img_size
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.head = nn.Linear(8, n_cls)

    def forward(self, x):
        x = F.interpolate(x, size=(self.img_size, self.img_size), mode="bilinear", align_corners=False)
        return self.head(F.relu(self.stem(x)).mean((2, 3)))


model = MultiScaleNet()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
sizes = [16 + 4 * k for k in range(12)]
g = torch.Generator().manual_seed(1)

for it in range(24):
    model.img_size = sizes[torch.randint(0, len(sizes), (1,), generator=g).item()]
    x = torch.rand(4, 3, 40, 40)
    y = torch.randint(0, 6, (4,))
    loss = F.cross_entropy(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 4 == 3:
        print(f"step {it} size {model.img_size} loss {loss.item():.4f}")
