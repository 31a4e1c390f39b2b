"""A tiny tracing helper built by a factory: make_tracer() returns an event
list and a locally defined `Scope` context manager class that appends to it.
The model's forward opens Scopes; after training we report how many scopes
ran. Source: pytorch/pytorch#197896 (mutations of a closure-captured list in a
method of a locally defined class instantiated inside the compiled function
are silently dropped; no graph break, no error)."""
import torch
import torch.nn as nn


def make_tracer():
    events = []

    class Scope:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            events.append(self.name)
            return self

        def __exit__(self, exc_type, exc, tb):
            return False

    return events, Scope


EVENTS, Scope = make_tracer()


class MLP(nn.Module):
    def __init__(self, d_in=16, d_h=32, n_cls=3):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_h)
        self.fc2 = nn.Linear(d_h, n_cls)

    def forward(self, x):
        with Scope("fc1"):
            h = torch.relu(self.fc1(x))
        with Scope("fc2"):
            out = self.fc2(h)
        return out


def main():
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    cmodel = torch.compile(model)
    X = torch.randn(64, 16)
    y = (X[:, 0] > 0).long() + (X[:, 1] > 0).long()
    for step in range(4):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(cmodel(X), y)
        loss.backward()
        opt.step()
        print(f"step {step}: loss={loss.item():.4f}")
    counts = {n: EVENTS.count(n) for n in ("fc1", "fc2")}
    print(f"scopes traced: {len(EVENTS)} {counts}")


if __name__ == "__main__":
    main()
