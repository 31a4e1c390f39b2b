# QAT of a small regression MLP: activations are fake-quantized to int8 with a
# scale that is re-estimated after every step from a running max of |activation|.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ActQuant(nn.Module):
    def __init__(self, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("scale", torch.tensor(1.0 / 127))
        self.register_buffer("zero_point", torch.zeros((), dtype=torch.int32))
        self.register_buffer("running_amax", torch.ones(()))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                amax = x.detach().abs().amax()
                self.running_amax.lerp_(amax, self.momentum)
        return torch.fake_quantize_per_tensor_affine(x, self.scale, self.zero_point, -128, 127)


class QATNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 64)
        self.act_q = ActQuant()
        self.fc2 = nn.Linear(64, 1)

    def forward(self, x):
        return self.fc2(self.act_q(F.relu(self.fc1(x))))


model = QATNet()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.randn(256, 8)
y = (x[:, :3].sum(1, keepdim=True)).tanh()
for step in range(12):
    loss = F.mse_loss(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.act_q.scale.copy_(model.act_q.running_amax / 127)
    if step % 3 == 0:
        print(f"step {step:2d}  loss {loss.item():.4f}  act scale {model.act_q.scale.item():.5f}")
print(f"final loss {loss.item():.4f}")
