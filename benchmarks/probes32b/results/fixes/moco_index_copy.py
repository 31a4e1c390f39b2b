import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MoCo(nn.Module):
    def __init__(self, in_dim=48, dim=32, queue_size=128, momentum=0.99, temperature=0.2):
        super().__init__()
        self.encoder_q = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, dim))
        self.encoder_k = copy.deepcopy(self.encoder_q)
        for p in self.encoder_k.parameters():
            p.requires_grad = False
        self.register_buffer("queue", F.normalize(torch.randn(dim, queue_size), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))
        self.momentum = momentum
        self.temperature = temperature

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for p_q, p_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            p_k.data = p_k.data * self.momentum + p_q.data * (1.0 - self.momentum)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        idx = (self.queue_ptr + torch.arange(batch_size)) % self.queue.shape[1]
        self.queue.index_copy_(1, idx, keys.T)
        self.queue_ptr.add_(batch_size).remainder_(self.queue.shape[1])

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self._momentum_update_key_encoder()
            k = F.normalize(self.encoder_k(im_k), dim=1)
        l_pos = (q * k).sum(dim=1, keepdim=True)
        l_neg = q @ self.queue.clone().detach()
        logits = torch.cat([l_pos, l_neg], dim=1) / self.temperature
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self._dequeue_and_enqueue(k)
        return logits, labels


model = torch.compile(MoCo())
opt = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9)

for step in range(8):
    x = torch.randn(16, 48)
    logits, labels = model(x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x))
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} queue_ptr {model.queue_ptr.item()}")
