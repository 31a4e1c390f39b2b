"""pytorch/pytorch#168352 ("torch.compile: async_op=True unsupported for
dist.all_to_all_single", https://github.com/pytorch/pytorch/issues/168352): a collective
issued with async_op=True inside a compiled function breaks the graph ("async_op=True for
distributed collectives"), and the returned Work handle's wait() breaks it again, a follow-on
of the first. Here a hand-written gradient-averaging step (gloo, world size 1) overlaps its
all_reduce with the next computation, as a data-parallel training loop does."""
import tempfile

import torch
import torch.distributed as dist


@torch.compile
def average_and_clip(grad, world_size):
    grad = grad / world_size
    work = dist.all_reduce(grad, async_op=True)
    scale = torch.rsqrt(grad.pow(2).mean() + 1e-6)
    work.wait()
    return grad * scale.clamp(max=1.0)


dist.init_process_group("gloo", init_method=f"file://{tempfile.mktemp()}", rank=0, world_size=1)
torch.manual_seed(0)
model = torch.nn.Linear(16, 4)
for step in range(3):
    model(torch.randn(8, 16)).pow(2).mean().backward()
    params = list(model.parameters())
    flat = torch.cat([p.grad.flatten() for p in params])
    flat = average_and_clip(flat, dist.get_world_size())
    with torch.no_grad():
        torch.nn.utils.vector_to_parameters(
            torch.nn.utils.parameters_to_vector(params) - 0.1 * flat, params)
    model.zero_grad()
    print(step, "ok")
dist.destroy_process_group()
