"""A compiled function returns a generator; what the generator returns is lost.

`batches` yields each batch's loss and returns the mean loss, read by `yield from`. Compiled,
Dynamo runs the generator to its end at the call and hands back an iterator over its items:
the items match eager's, the returned mean is None."""
import torch

torch.manual_seed(0)
weight = torch.randn(8, 8)


def batches(data):
    def run():
        total = torch.zeros(())
        for x in data.split(4):
            loss = (x @ weight).relu().mean()
            total = total + loss
            yield loss
        return total / 4  # <- diagnosis
    return run()


def epoch(stream):
    mean = yield from stream
    print("mean loss:", mean)


data = torch.randn(16, 8)
for loss in epoch(torch.compile(batches, backend="eager")(data)):
    pass
