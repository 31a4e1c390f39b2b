"""The whole training step (forward, loss, backward, optimizer step) is compiled with
mode="reduce-overhead" to cut launch overhead. Dynamo does not trace Tensor.backward() (without
compiled autograd): it breaks the graph at `loss.backward()`, so the forward runs as one CUDA
graph, backward runs eagerly from Python, and the optimizer step is traced in a resume function
(with the optimizer's own designed breaks). The fix: compile only the model (or the forward and
loss) and call loss.backward() and opt.step() outside, or compile opt.step separately."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                      nn.Linear(512, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


@torch.compile(mode="reduce-overhead")
def train_step(x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.detach()


x = torch.randn(128, 256, device="cuda")
y = torch.randint(0, 10, (128,), device="cuda")
for step in range(10):
    loss = train_step(x, y)
    if step % 3 == 0:
        print(f"step {step} loss {loss.item():.4f}")
