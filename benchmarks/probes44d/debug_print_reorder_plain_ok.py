"""Correct cousin of act_rms_print_end_dropped / obs_norm_print_before_update:
`print` is registered as a reorderable logging function and called in the
compiled forward itself, with plain positional arguments only and no
in-place update of what it prints.  Dynamo replays the print after the graph
with the same text as eager, so nothing is lost or changed."""
import torch
import torch.nn as nn

torch._dynamo.config.reorderable_logging_functions.add(print)
torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self, d=12, n_cls=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.head = nn.Linear(32, n_cls)

    def forward(self, x):
        h = self.body(x)
        print("feature rms", h.detach().pow(2).mean().sqrt())
        return self.head(h)


def main():
    model = Classifier()
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        x = torch.randn(16, 12)
        y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
        loss = nn.functional.cross_entropy(cmodel(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
