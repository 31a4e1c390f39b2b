"""Class-incremental learning with an expanding classifier, in the style of PyCIL's
IncrementalNet.update_fc (G-U-N/PyCIL): at every new task a larger fc head is built, the old
class weights are copied into it, and it replaces the old head. Backbone + head are compiled once.
10 tasks x 2 new classes on synthetic clustered data.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class IncrementalNet(nn.Module):
    def __init__(self, d_in=32, feat_dim=64):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(d_in, feat_dim), nn.ReLU(), nn.Linear(feat_dim, feat_dim), nn.ReLU())
        self.feat_dim = feat_dim
        self.fc = None

    def update_fc(self, nb_classes):
        fc = nn.Linear(self.feat_dim, nb_classes)
        if self.fc is not None:
            nb_output = self.fc.out_features
            with torch.no_grad():
                fc.weight[:nb_output] = self.fc.weight
                fc.bias[:nb_output] = self.fc.bias
        self.fc = fc

    def forward(self, x):
        return self.fc(self.backbone(x))


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    n_tasks, per_task = 10, 2
    centers = torch.randn(n_tasks * per_task, 32, generator=g) * 2
    model = IncrementalNet()
    cmodel = torch.compile(model)
    for task in range(n_tasks):
        known = (task + 1) * per_task
        model.update_fc(known)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        lo = task * per_task
        for step in range(3):
            y = torch.randint(lo, known, (32,), generator=g)
            x = centers[y] + 0.3 * torch.randn(32, 32, generator=g)
            loss = F.cross_entropy(cmodel(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"task {task} classes {known:2d} loss {loss.item():.4f}")
    y = torch.arange(n_tasks * per_task).repeat(8)
    x = centers[y] + 0.3 * torch.randn(len(y), 32, generator=g)
    with torch.no_grad():
        acc = (model(x).argmax(-1) == y).float().mean().item()
    print(f"final accuracy over all classes {acc:.3f}")


if __name__ == "__main__":
    main()
