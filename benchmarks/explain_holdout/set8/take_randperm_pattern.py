"""pytorch/pytorch#188223 ("[inductor] pattern_matcher `RuntimeError: Not all inputs to pattern
found in match.kwargs`", https://github.com/pytorch/pytorch/issues/188223, closed): a function
that applies sigmoid_ in place to a global float16 tensor, then takes elements at randperm
indices, runs in eager and fails to compile with Inductor: a joint-graph pattern-matcher pass
crashes ("Not all inputs to pattern found in match.kwargs"). The issue's repro."""
import torch

torch.manual_seed(0)
t6046 = torch.rand([4, 32], dtype=torch.float16)


def model_102():
    t6049 = torch.sigmoid_(t6046)
    t6047 = torch.randperm(10)
    t6050 = torch.take(t6049, t6047)
    return t6050


eager_out = model_102()
print("eager OK:", type(eager_out))

compiled = torch.compile(model_102, backend="inductor")
with torch.no_grad():
    compiled_out = compiled()
print("compiled OK:", type(compiled_out))
