"""pytorch/pytorch#178013 ("Eager and compile disagree for integer floor_divide with zero divisor",
https://github.com/pytorch/pytorch/issues/178013, open): on CUDA, integer floor_divide by zero
returns one value in eager and another from the Inductor-compiled function (no error in either).
The issue's repro, ending in the comparison the reporter printed, as a check."""
import torch

t0 = torch.tensor([0.0], dtype=torch.float64).reshape((1,)).to(torch.int64).to("cuda:0")
t1 = torch.tensor([0.0], dtype=torch.float64).reshape((1,)).to(torch.int64).to("cuda:0")

eager_out = torch.floor_divide(t0, t1)

torch._dynamo.reset()


def fn(t0, t1):
    return torch.floor_divide(t0, t1)


compiled_fn = torch.compile(fn, fullgraph=True)
compiled_out = compiled_fn(t0, t1)
print("eager   :", eager_out)
print("compiled:", compiled_out)
assert torch.equal(eager_out, compiled_out), (eager_out.tolist(), compiled_out.tolist())
