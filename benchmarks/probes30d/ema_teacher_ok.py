import copy

import torch
import torch.nn as nn

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 64))

    def forward(self, x):
        return nn.functional.normalize(self.net(x), dim=-1)


student = Encoder()
teacher = copy.deepcopy(student).requires_grad_(False)
c_student = torch.compile(student)
c_teacher = torch.compile(teacher)
opt = torch.optim.AdamW(student.parameters(), lr=1e-3)
data = torch.randn(512, 32)


@torch.no_grad()
def ema_update(decay):
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.mul_(decay).add_(s, alpha=1 - decay)


for epoch in range(3):
    student.train()
    teacher.train()
    for i in range(0, 512, 128):
        x = data[i:i + 128]
        view1 = x + 0.1 * torch.randn_like(x)
        view2 = x + 0.1 * torch.randn_like(x)
        with torch.no_grad():
            target = c_teacher(view2)
        loss = (2 - 2 * (c_student(view1) * target).sum(dim=-1)).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        ema_update(0.99)
    student.eval()
    with torch.no_grad():
        agree = (c_student(data) * c_teacher(data)).sum(-1).mean()
    print(f"epoch {epoch} loss {loss.item():.4f} student/teacher cosine {agree.item():.4f}")
