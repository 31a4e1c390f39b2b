"""Serving harness: export the classifier once, then torch.compile the exported
module and run it over an evaluation DataLoader.

Users mix torch.export with torch.compile this way (pytorch/pytorch#130152,
2024, "Running torch._inductor.compile directly on an ExportedProgram";
pytorch/pytorch#150926, 2025, "Cannot export once a nn.Module is compiled").
The export is traced with one example batch and no dynamic_shapes, so the
exported module only accepts that batch size; the loader's last batch is
smaller (drop_last=False).
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self, d_in=24, d_hidden=48, n_cls=5):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.GELU(), nn.LayerNorm(d_hidden),
            nn.Linear(d_hidden, n_cls),
        )

    def forward(self, x):
        return self.net(x).log_softmax(-1)


def main():
    model = Classifier().eval()
    xs = torch.randn(44, 24)
    ys = torch.randint(0, 5, (44,))
    loader = DataLoader(TensorDataset(xs, ys), batch_size=8, shuffle=False)

    example = torch.randn(8, 24)
    exported = torch.export.export(model, (example,))
    serve = torch.compile(exported.module())

    correct, nll, seen = 0, 0.0, 0
    with torch.no_grad():
        for step, (x, y) in enumerate(loader):
            logp = serve(x)
            nll += -logp.gather(1, y[:, None]).sum().item()
            correct += (logp.argmax(-1) == y).sum().item()
            seen += x.shape[0]
            print(f"batch {step}: n={x.shape[0]} running_acc={correct / seen:.3f}")
    print(f"eval: acc={correct / seen:.3f} nll={nll / seen:.4f}")


if __name__ == "__main__":
    main()
