"""Magnitude pruning of activations with a custom op that also returns a count.

``prune_ops::keep_above`` zeroes activations below a threshold and returns how
many survived (a Python int), which the model uses to average the surviving
activations.  The fake (meta) kernel cannot know the count, so the author
returned an upper bound, ``x.numel()``.  Under torch.compile that fake int is
what the traced graph sees: the count is burned into the graph as a constant.
The right fake uses ``torch.library.get_ctx().new_dynamic_size()``.

Source: torch.library docs for register_fake (data-dependent outputs use
ctx.new_dynamic_size) and test/test_custom_ops.py's int-returning custom ops.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


@torch.library.custom_op("prune_ops::keep_above", mutates_args=())
def keep_above(x: torch.Tensor, thr: float) -> tuple[torch.Tensor, int]:
    mask = x.abs() > thr
    return x * mask, int(mask.sum())


@keep_above.register_fake
def _(x, thr):
    return torch.empty_like(x), x.numel()


class PrunedPool(nn.Module):
    def __init__(self, d_in=24, d_hidden=48, thr=0.5):
        super().__init__()
        self.proj = nn.Linear(d_in, d_hidden)
        self.thr = thr

    def forward(self, x):
        h = torch.tanh(self.proj(x))
        kept, n_kept = keep_above(h, self.thr)
        return kept.sum() / max(n_kept, 1)


def main():
    model = PrunedPool().eval()
    compiled = torch.compile(model)
    with torch.no_grad():
        for step in range(4):
            x = torch.randn(16, 24)
            pooled = compiled(x)
            print(f"batch {step}: pooled activation {pooled.item():.5f}")


if __name__ == "__main__":
    main()
