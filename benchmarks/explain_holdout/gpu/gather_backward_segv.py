"""pytorch/pytorch#172069: "[SegFault] Segmentation fault when using aten.gather_backward with
sparse grad in Inductor backend". The eager backend runs; Inductor's compiled function crashes
the process."""
import torch


def model_func(grad, self, index):
    out = torch.ops.aten.gather_backward(grad, self=self, dim=1, index=index, sparse_grad=True)
    out = out + out
    return out


op_config = {"grad": torch.randn([3, 7, 2], dtype=torch.float32, device="cuda"),
             "self": torch.randn([3, 5, 2], dtype=torch.float32, device="cuda"),
             "index": torch.randint(2, 32, [3, 7, 2], dtype=torch.int16, device="cuda")}
compiled_eager = torch.compile(model_func, backend="eager")
out1 = compiled_eager(**op_config)
compiled_inductor = torch.compile(model_func, backend="inductor")
out_inductor = compiled_inductor(**op_config)
torch.cuda.synchronize()
print(out_inductor)
