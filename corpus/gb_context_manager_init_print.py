"""Graph break: a context manager whose __init__ prints. The print breaks the graph, so the
object is built in eager, and Dynamo then cannot enter it at the `with` (pytorch#191523):
the second break is the first's consequence."""
import torch


class Section:
    def __init__(self, name):
        self.name = name
        print("section", name)  # <- diagnosis

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def step(x):
    with Section("mm"):
        y = x @ x
    return y.relu()


print(step(torch.randn(4, 4)).sum())
