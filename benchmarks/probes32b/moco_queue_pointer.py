import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self, in_dim=48, dim=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=1)


class QueueContrast(nn.Module):
    def __init__(self, dim=32, queue_size=160, temperature=0.07):
        super().__init__()
        self.register_buffer("queue", F.normalize(torch.randn(dim, queue_size), dim=0))
        self.queue_size = queue_size
        self.queue_ptr = 0
        self.temperature = temperature

    def forward(self, q, k):
        l_pos = (q * k).sum(dim=1, keepdim=True)
        l_neg = q @ self.queue.clone().detach()
        logits = torch.cat([l_pos, l_neg], dim=1) / self.temperature
        labels = torch.zeros(q.shape[0], dtype=torch.long)
        batch = k.shape[0]
        self.queue[:, self.queue_ptr:self.queue_ptr + batch] = k.detach().T
        self.queue_ptr = (self.queue_ptr + batch) % self.queue_size
        return F.cross_entropy(logits, labels)


encoder = Encoder()
criterion = torch.compile(QueueContrast())
opt = torch.optim.SGD(encoder.parameters(), lr=0.05, momentum=0.9)

for step in range(12):
    x = torch.randn(16, 48)
    view1 = x + 0.1 * torch.randn_like(x)
    view2 = x + 0.1 * torch.randn_like(x)
    q = encoder(view1)
    with torch.no_grad():
        k = encoder(view2)
    loss = criterion(q, k)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
