"""pytorch/pytorch#173053 ("TorchInductor BackendCompilerFailed when lowering
aten.embedding.default", https://github.com/pytorch/pytorch/issues/173053): aten.embedding with
sparse=True and padding_idx=-1 on CUDA runs with backend="eager"; Inductor's lowering of the op
fails (BackendCompilerFailed). On the CPU (torch 2.13) it compiles."""
import torch


def model_func(weight, indices):
    out = torch.ops.aten.embedding(weight, indices=indices, padding_idx=-1,
                                   scale_grad_by_freq=False, sparse=True)
    return out


weight = torch.randn([1000, 256], dtype=torch.bfloat16, device="cuda")
indices = torch.randint(0, 3, [32, 64, 12], dtype=torch.int64, device="cuda")
out1 = torch.compile(model_func, backend="eager")(weight, indices)
out_inductor = torch.compile(model_func, backend="inductor")(weight, indices)
print("ok", out_inductor.shape)
