"""pytorch/pytorch#173478 ("[Inconsitency] Numerical Discrepancy Between Eager and Inductor
Backends for atan + special_psi Composition", open, high priority): special_psi written with
out= into its own input after atan; Inductor's result differs from backend='eager'. The issue's
script on the CPU (the issue used CUDA), seeded; the user's assert_close is the issue's."""
import torch

torch.manual_seed(0)


def model_func(self):
    out = torch.ops.aten.atan(self)
    out = torch.ops.aten.special_psi(out, out=out)
    return out


input_config = {"self": torch.randn([4, 8, 16], dtype=torch.float32)}
compiled_eager = torch.compile(model_func, backend="eager")
out1 = compiled_eager(**input_config)
compiled_inductor = torch.compile(model_func, backend="inductor")
out_inductor = compiled_inductor(**input_config)
torch.testing.assert_close(out1, out_inductor)
