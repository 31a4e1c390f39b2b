"""test/dynamo/test_hooks.py::HooksTests::test_tensor_register_global_hooks_handles_in_list
(a function that stores a tensor hook's handle in a global: `# NYI!`, the test asserts
frame_count == 0, nothing compiled). A forward clips the gradient flowing into a hidden
activation with a tensor hook and keeps the hook's handle in a module-level variable so the
training loop can remove it after backward. Dynamo cannot store a tensor hook handle in
globals ("Storing Tensor hook handle in globals ... This is not supported") and cannot resume
there, so it skips the whole function: every step runs in eager, with no error."""
import torch

torch.manual_seed(0)
clip_handle = None


def clip_grad(grad):
    return grad.clamp(-0.05, 0.05)


encoder = torch.nn.Linear(16, 32)
head = torch.nn.Linear(32, 1)
opt = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)


@torch.compile
def forward_loss(x, y):
    global clip_handle
    h = encoder(x)
    clip_handle = h.register_hook(clip_grad)
    return torch.nn.functional.mse_loss(head(torch.tanh(h)), y)


for step in range(3):
    loss = forward_loss(torch.randn(8, 16), torch.randn(8, 1))
    loss.backward()
    clip_handle.remove()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}")
