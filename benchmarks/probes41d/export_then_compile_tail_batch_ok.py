"""Correct cousin of export_then_compile_tail_batch.py: the batch dimension is
exported as dynamic (dynamic_shapes with a Dim) and the exported module is
compiled with dynamic=True, so the loader's smaller last batch is accepted.

Users mix torch.export with torch.compile this way (pytorch/pytorch#130152,
2024, "Running torch._inductor.compile directly on an ExportedProgram";
pytorch/pytorch#150926, 2025, "Cannot export once a nn.Module is compiled").
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
    batch = torch.export.Dim("batch", min=1, max=64)
    exported = torch.export.export(model, (example,), dynamic_shapes={"x": {0: batch}})
    serve = torch.compile(exported.module(), dynamic=True)

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
