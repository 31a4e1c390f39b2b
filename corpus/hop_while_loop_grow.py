"""A torch.while_loop body whose carried value changes shape: a greedy decode appends one
token per iteration with torch.cat, while while_loop carries each value with the same shape
and dtype from one iteration to the next. After pytorch/pytorch#147210 ("Consider relaxing
the in-place mutation restriction for torch.cond and torch.while_loop", its decoding loop)."""
import torch
from torch._higher_order_ops.while_loop import while_loop

torch.manual_seed(0)
W = torch.randn(10, 10)


def decode(tokens, steps):
    def cond_fn(tokens, i):
        return i < steps

    def body_fn(tokens, i):
        logits = torch.nn.functional.one_hot(tokens[-1:], 10).float() @ W
        nxt = logits.argmax(dim=-1)
        return torch.cat([tokens, nxt]), i + 1  # <- diagnosis

    return while_loop(cond_fn, body_fn, (tokens, torch.tensor(0)))


start = torch.tensor([3])
print(torch.compile(decode, backend="eager")(start, torch.tensor(4)))
