"""pytorch/pytorch#188224 ("[inductor] `LoweringException: AssertionError` in `_validate_dim`
lowering", https://github.com/pytorch/pytorch/issues/188224): eager accepts cummin over an empty
window along dim -46; Inductor's lowering asserts on the dim."""
import torch


def model(n):
    w = torch.bartlett_window(n, periodic=False, requires_grad=False)
    c = torch.clone(w)
    return torch.cummin(c, -46)[0]


eager_out = model(0)
print("eager OK:", type(eager_out))
compiled = torch.compile(model, backend="inductor")
with torch.no_grad():
    compiled_out = compiled(0)
print("compiled OK:", type(compiled_out))
