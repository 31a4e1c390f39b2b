"""pytorch/pytorch#150484 ("API to specify cudagraph sizes", https://github.com/pytorch/pytorch/issues/150484,
open, module: vllm): "we cache on symint function args and record a new cudagraph whenever we see
a new dynamic shape", which costs a recording per batch size; the issue's motivating user is
vLLM's piecewise CUDA graphs, where the attention op is kept out of the graphs and every piece
between them is recorded per size. Here, with Inductor's graph partitioning, a decode step whose
attention is a custom op tagged cudagraph_unsafe (run eagerly, between two CUDA-graph
partitions), compiled with mode="reduce-overhead", dynamic=True, called with a new batch size on
each of 16 steps: each partition records a CUDA graph per size, and past
cudagraph_dynamic_shape_warn_limit torch warns, per partition, "CUDAGraph supports dynamic shapes
by recording a new graph for each distinct input size ... We have observed N distinct sizes".

Why it should still reproduce on torch 2.11: by design (#150484 is open; PR #156551 added the
opt-in cudagraph_capture_sizes, not a default); partitions with dynamic shapes record per size
since PR #149458 (2025); the cudagraph_unsafe tag and the warning are in 2.11 (corpus/gpu's
cg_partitioned and cg_rerecord_warned run on the H200's 2.11)."""
import torch

torch._inductor.config.graph_partition = True


@torch.library.custom_op("set10::host_attention", mutates_args=(),
                         tags=(torch._C.Tag.cudagraph_unsafe,))
def host_attention(h: torch.Tensor) -> torch.Tensor:
    return torch.softmax(h @ h.T, dim=-1) @ h


@host_attention.register_fake
def _(h):
    return torch.empty_like(h)


def decode_step(x, w):
    h = (x @ w).relu()
    a = host_attention(h)
    return (a @ w.T).sum(-1)


compiled = torch.compile(decode_step, mode="reduce-overhead", dynamic=True)
w = torch.randn(64, 64, device="cuda")
for batch in range(2, 18):
    out = compiled(torch.randn(batch, 64, device="cuda"), w)
torch.cuda.synchronize()
print(out.shape)
