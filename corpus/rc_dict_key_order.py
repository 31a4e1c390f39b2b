# After pytorch/pytorch#124779: a dict of per-task targets whose keys arrive in another order
# each step. The compiled loss iterates the dict, Dynamo unrolls the loop over the keys in
# their order and guards each position, so every new order recompiles.
import torch

WEIGHTS = {"a": 1.0, "b": 0.5, "c": 2.0}


@torch.compile
def total_loss(pred, targets):
    loss = pred.new_zeros(())
    for name, t in targets.items():
        loss = loss + WEIGHTS[name] * (pred - t).pow(2).mean()
    return loss


pred = torch.randn(8)
orders = [("a", "b", "c"), ("b", "a", "c"), ("c", "b", "a")]
for order in orders:
    targets = {k: torch.randn(8) for k in order}
    print(order, float(total_loss(pred, targets)) > 0)
