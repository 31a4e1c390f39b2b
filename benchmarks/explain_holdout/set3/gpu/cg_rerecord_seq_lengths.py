"""pytorch/pytorch#188150 (via pytorch/pytorch#188913, "Add
triton.cudagraph_max_recorded_sizes to cap dynamic shape re-recording") and pytorch/pytorch#162299
(via #162696): a training loop that pads each batch to its own longest sequence, under
mode="reduce-overhead", records a new CUDA graph (forward and backward) for every distinct
sequence length; past cudagraph_dynamic_shape_warn_limit (8) torch warns for each new size, and
recording costs more than replay saves (step time 22 s -> 25 s in the issue)."""
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 64)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)


@torch.compile(mode="reduce-overhead")
def loss_fn(x):
    return model(x).square().mean()


for seqlen in range(16, 32):  # each batch padded to its own longest sequence
    x = torch.randn(4, seqlen, 64, device="cuda")
    loss = loss_fn(x)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
