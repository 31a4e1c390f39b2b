"""A training loop that tracks activation statistics for monitoring. The helper that records
them appended to a Python list and broke the graph, so it was marked
torch._dynamo.allow_in_graph to keep one graph. The loop then prints the mean of what was
recorded."""
import torch
import torch.nn as nn

ACT_NORMS = []


@torch._dynamo.allow_in_graph
def record_norm(h):
    ACT_NORMS.append(h.detach().norm().item())
    return h


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.fc2 = nn.Linear(64, 1)

    def forward(self, x):
        h = record_norm(torch.relu(self.fc1(x)))
        return self.fc2(h)


torch.manual_seed(0)
model = MLP()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
step_fn = torch.compile(model)
for step in range(5):
    x, y = torch.randn(32, 20), torch.randn(32, 1)
    loss = nn.functional.mse_loss(step_fn(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("recorded", len(ACT_NORMS), "norms over 5 steps")
print("mean activation norm %.3f" % (sum(ACT_NORMS) / len(ACT_NORMS)))
