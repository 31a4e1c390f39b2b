"""pytorch/pytorch#172062 ("[Inconsistency] inductor backend produces numerically divergent
results vs eager for aten.cumprod_backward", closed): aten.cumprod_backward compiled by Inductor
differs from backend='eager' in every element. The issue's script on the CPU (the issue used
CUDA), seeded; the user's assert_close is the issue's."""
import torch

torch.manual_seed(0)


def model_func(grad, input, dim, output):
    out = torch.ops.aten.cumprod_backward(grad, input=input, dim=dim, output=output)
    return out


op_config = {"grad": torch.randn([1, 100], dtype=torch.float64) * 0.1,
             "input": torch.randn([1, 100], dtype=torch.float64) * 0.1, "dim": 1,
             "output": torch.randn([1, 100], dtype=torch.float64) * 0.1}
compiled_eager = torch.compile(model_func, backend="eager")
out1 = compiled_eager(**op_config)
compiled_inductor = torch.compile(model_func, backend="inductor")
out_inductor = compiled_inductor(**op_config)
torch.testing.assert_close(out1, out_inductor)
