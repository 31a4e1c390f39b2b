"""test/inductor/test_compiled_autograd.py, known_failing_tests: "test_multi_grad_any_hooks"
(# register_multi_grad_hook), run as unittest.expectedFailure when the autograd tests are
traced. A two-tower model counts the backward passes that reach both towers' outputs with
torch.autograd.graph.register_multi_grad_hook, called inside its compiled forward. Dynamo cannot
put the multi-grad hook in the graph ("Missing `as_proxy()` implementation for some arg/kwarg",
a reason that names neither the hook nor its function) and breaks the forward at that
line; the towers before it and the head after it are compiled as two graphs."""
import torch

torch.manual_seed(0)
tower_a = torch.nn.Linear(16, 16)
tower_b = torch.nn.Linear(16, 16)
head = torch.nn.Linear(16, 1)
opt = torch.optim.SGD([*tower_a.parameters(), *tower_b.parameters(), *head.parameters()], lr=0.05)
backward_passes = []


@torch.compile
def forward_loss(x, y):
    a = tower_a(x)
    b = tower_b(x)
    torch.autograd.graph.register_multi_grad_hook((a, b), lambda grads: backward_passes.append(len(grads)))
    return torch.nn.functional.mse_loss(head(torch.relu(a * b)), y)


for step in range(3):
    loss = forward_loss(torch.randn(8, 16), torch.randn(8, 1))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f} hooks fired {len(backward_passes)}")
