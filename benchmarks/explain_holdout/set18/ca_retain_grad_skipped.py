"""test/inductor/test_compiled_autograd.py, known_failing_tests: "test_retain_grad"
(# retains_grad_hooks), which the file runs as unittest.expectedFailure under compiled autograd.
A training step compiled with compiled autograd on keeps the gradient of a hidden activation
(`h.retain_grad()`) to log its norm. Dynamo refuses `Tensor.retain_grad()` ("does not work with
AOTDispatcher") where it cannot resume, so it skips the whole step and runs it in eager; the
retain-grad hook then reaches compiled autograd's backward graphs as a C++ tensor pre-hook, where
Dynamo breaks again (`call_cpp_tensor_pre_hooks`). One cause, the retain_grad call; the rest are
its consequences."""
import torch

torch._dynamo.config.compiled_autograd = True
torch.manual_seed(0)
encoder = torch.nn.Linear(16, 32)
head = torch.nn.Linear(32, 1)
opt = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.05)


@torch.compile
def train_step(x, y):
    h = encoder(x)
    h.retain_grad()
    loss = torch.nn.functional.mse_loss(head(torch.tanh(h)), y)
    loss.backward()
    return loss, h


for step in range(3):
    x, y = torch.randn(8, 16), torch.randn(8, 1)
    loss, h = train_step(x, y)
    print(f"step {step} loss {loss.item():.4f} |dL/dh| {h.grad.norm().item():.4f}")
    opt.step()
    opt.zero_grad()
