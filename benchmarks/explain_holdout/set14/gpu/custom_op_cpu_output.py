"""pytorch/pytorch#121374 ("Pointer argument (at 1) cannot be accessed from Triton (cpu tensor?)",
a compiled CUDA pipeline, closed): Triton's launcher refuses a host pointer. One way a CPU
tensor reaches a kernel Inductor wrote for CUDA is a custom op whose fake impl disagrees with
its real impl about the device: torch.compile plans the graph from the fake impl (a CUDA
result), while the real impl, run by the compiled code, returns a CPU tensor; the fused Triton
kernel that reads it then raises "Pointer argument ... cannot be accessed from Triton (cpu
tensor?)". Eager runs (the CPU result meets a CPU multiply). Should reproduce on torch 2.11:
by design, torch.library trusts the fake impl (its docs require it to match the real impl's
metadata) and the compiled wrapper checks an extern op's output only for size, stride and
alignment (the 2.13 wheel's ir.codegen_size_asserts / codegen_alignment_asserts), never its
device; Triton's NVIDIA launcher has rejected host pointers with this message for years."""
import torch


@torch.library.custom_op("set14gpu::row_normalize", mutates_args=())
def row_normalize(x: torch.Tensor) -> torch.Tensor:
    y = x.detach().cpu()  # a host round trip (say, a NumPy step) that never comes back
    return y / y.norm(dim=-1, keepdim=True)


@row_normalize.register_fake
def _(x):
    return torch.empty_like(x)


def head(x):
    z = row_normalize(x)
    return torch.relu(z) * 2.0


x = torch.randn(8, 16, device="cuda")
print(head(x).device)  # eager: cpu, no error
out = torch.compile(head)(x)
torch.cuda.synchronize()
print(out.device)
