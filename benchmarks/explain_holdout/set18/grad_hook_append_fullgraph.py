"""test/dynamo/test_hooks.py::HooksTests::test_hook_bwd_inside_side_effects (asserts
`torch._dynamo.exc.Unsupported`, "Unsafe side effect", for a hook on an intermediate tensor that
appends its gradient to a list defined outside the compiled function). A training step compiled
with fullgraph=True monitors the gradient reaching a hidden activation with a tensor hook that
appends the gradient's norm to a module-level list. Dynamo traces the hook into the graph as a
higher-order op, and a hook body that mutates state outside it is refused: with fullgraph=True
the first call ends with "HOP: Unsafe side effect ... Attempted to mutate ListVariable". The
mutation is the hook's `append`, not activation checkpointing (which torch's hint guesses)."""
import torch

torch.manual_seed(0)
grad_norms = []


def log_grad_norm(grad):
    grad_norms.append(grad.norm())
    return grad


encoder = torch.nn.Linear(16, 32)
head = torch.nn.Linear(32, 4)


@torch.compile(fullgraph=True)
def forward_loss(x, target):
    h = encoder(x)
    h.register_hook(log_grad_norm)
    return torch.nn.functional.cross_entropy(head(torch.relu(h)), target)


for step in range(2):
    loss = forward_loss(torch.randn(8, 16), torch.randint(0, 4, (8,)))
    loss.backward()
    print(f"step {step} loss {loss.item():.4f} grad norm {grad_norms[-1].item():.4f}")
