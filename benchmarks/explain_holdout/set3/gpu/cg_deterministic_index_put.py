"""pytorch/pytorch#167613, as shown in pytorch/pytorch#168185 ("Fix cudagraph partitioning
handling of deterministic fallbacks", https://github.com/pytorch/pytorch/pull/168185): with
torch.use_deterministic_algorithms(True) (as benchmarks' --accuracy mode does), index_put_ with
accumulate=True falls back to the ATen kernel and reduce-overhead skips CUDA graphs, "with or
without cudagraph partition": "skipping cudagraphs due to disabling cudagraphs due to
incompatible op aten.index_put_.default Found from ... line 12, in fn"."""
import torch


def fn(x, y, z):
    x = torch.zeros_like(x)
    return x.index_put_([y], z, True)


torch.use_deterministic_algorithms(True)
fn_c = torch.compile(mode="reduce-overhead")(fn)


def args():
    x = torch.zeros((512, 512), dtype=torch.bool, device="cuda")
    y = torch.arange(512, dtype=torch.int64, device="cuda")
    z = torch.ones((512, 512), dtype=torch.bool, device="cuda")
    return x, y, z


for _ in range(3):
    fn_c(*args())
torch.cuda.synchronize()
