import torch
f = torch.compile(lambda: torch.rand(10_000_000, dtype=torch.float64))
torch.manual_seed(0); c = f(); torch.manual_seed(0); e = torch.rand(10_000_000, dtype=torch.float64)
print('dups compiled', c.numel() - c.unique().numel(), 'eager', e.numel() - e.unique().numel())
print('compiled values on float32 grid:', torch.equal(c, c.float().double()))
