"""pytorch/pytorch#175855 ("torch.compile yields incorrect results when iterating over a list",
https://github.com/pytorch/pytorch/issues/175855): a generator appends to the list it iterates;
eager visits the new items (6.), the compiled module does not (1.)."""
import torch
import torch.nn as nn


class Grow(nn.Module):
    def forward(self, x):
        vals = [x.sum()]

        def grow_and_read():
            for item in vals:
                if len(vals) < 3:
                    vals.append(item + 1)
                yield item
        seq = list(grow_and_read())
        return torch.stack(seq).sum()


m = Grow()
x = torch.ones(1)
eager = m(x)
compiled = torch.compile(m)(x)
torch.testing.assert_close(compiled, eager)
