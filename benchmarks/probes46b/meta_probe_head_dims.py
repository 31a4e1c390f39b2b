"""Multi-task model whose heads are sized by probing the compiled backbone on meta tensors.

The backbone is compiled first (the notebook's first cell); a later cell builds one head
per task and reads the feature width by running the backbone under torch.device("meta"),
a common "shape inference without allocating" helper. Then a few training steps on real
CPU batches. Source: the meta-device shape-inference idiom (torch.device("meta") context,
PyTorch "meta device" docs) as used for lazily sized heads.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Flatten(),
        )

    def forward(self, x):
        return self.net(x)


def feature_dim(model, image_shape):
    """Output width of `model` for one image, computed without real memory."""
    with torch.device("meta"):
        return model(torch.empty(1, *image_shape)).shape[-1]


TASKS = {"digits": ((3, 16, 16), 10), "shapes": ((3, 16, 16), 4)}


def main():
    backbone = torch.compile(Backbone())
    heads = nn.ModuleDict({
        name: nn.Linear(feature_dim(backbone, shape), classes)
        for name, (shape, classes) in TASKS.items()
    })
    params = list(backbone.parameters()) + list(heads.parameters())
    opt = torch.optim.SGD(params, lr=0.05)
    g = torch.Generator().manual_seed(0)
    for step in range(6):
        name = "digits" if step % 2 == 0 else "shapes"
        shape, classes = TASKS[name]
        x = torch.randn(32, *shape, generator=g)
        y = torch.randint(0, classes, (32,), generator=g)
        loss = F.cross_entropy(heads[name](backbone(x)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} task {name:6s} loss {loss.item():.4f}")
    print("feature dims:", {n: h.in_features for n, h in heads.items()})


if __name__ == "__main__":
    main()
