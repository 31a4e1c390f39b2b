"""pytorch/pytorch#163329: regional compilation of a transformer's repeated blocks; each block
instance holds its own attention processor object, so the shared Block.forward recompiles on
`___check_obj_id(self._modules['attn'].processor, ...)` for every block (diffusers' Flux; tiny
CPU blocks here)."""
import torch


class Processor:
    def __call__(self, x):
        return torch.softmax(x, dim=-1) * x


class Attn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)
        self.processor = Processor()

    def forward(self, x):
        return self.processor(self.proj(x))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attn()

    def forward(self, x):
        return x + self.attn(x)


blocks = torch.nn.ModuleList(Block() for _ in range(3))
for b in blocks:
    b.compile(backend="eager")
x = torch.randn(2, 16)
for b in blocks:
    x = b(x)
print("ok")
