"""pytorch/pytorch#149782 ("cudagraph_unsafe custom ops support", an item of the graph-partition
tracker #151832): with graph_partition on, a custom op tagged cudagraph_unsafe in the middle of
a reduce-overhead function splits the graph; the parts around it replay as CUDA graphs."""
import torch

torch._inductor.config.graph_partition = True


@torch.library.custom_op("holdout::host_scale", mutates_args=(),
                         tags=(torch._C.Tag.cudagraph_unsafe,))
def host_scale(t: torch.Tensor) -> torch.Tensor:
    return t * float(t.abs().max().item() + 1.0)


@host_scale.register_fake
def _(t):
    return torch.empty_like(t)


def f(x):
    a = x.sin() + 1
    b = host_scale(a)
    return (b.cos() * 2).sum()


compiled = torch.compile(f, mode="reduce-overhead")
x = torch.randn(128, device="cuda")
for _ in range(4):
    compiled(x)
torch.cuda.synchronize()
