"""pytorch/pytorch#148222 ("make saved_tensor_hooks work better in compile for doing activation
compression", https://github.com/pytorch/pytorch/issues/148222, open): the eager API for
compressing the activations autograd saves is torch.autograd.graph.saved_tensors_hooks(pack,
unpack). A memory-saving training step puts that context manager inside the compiled forward
to keep its saved activations in bfloat16. Dynamo cannot enter a `saved_tensors_hooks` context
manager ("Dynamo does not know how to enter a `saved_tensors_hooks` context manager"), so the
compiled forward breaks at the `with` line and its body runs outside the graph; the pack hook
is then compiled as a frame of its own."""
import torch

torch.manual_seed(0)


def pack_bf16(t):
    return t.to(torch.bfloat16)


def unpack_fp32(t):
    return t.to(torch.float32)


mlp = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 1))
opt = torch.optim.SGD(mlp.parameters(), lr=0.05)


@torch.compile
def forward_loss(x, y):
    with torch.autograd.graph.saved_tensors_hooks(pack_bf16, unpack_fp32):
        pred = mlp(x)
    return torch.nn.functional.mse_loss(pred, y)


for step in range(3):
    loss = forward_loss(torch.randn(16, 32), torch.randn(16, 1))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}")
