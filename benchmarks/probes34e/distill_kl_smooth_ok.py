import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
T = 2.0

teacher = nn.Sequential(nn.Linear(24, 128), nn.ReLU(), nn.Linear(128, 10)).eval()
student = nn.Sequential(nn.Linear(24, 32), nn.ReLU(), nn.Linear(32, 10))
opt = torch.optim.Adam(student.parameters(), lr=2e-3)


def distill_loss(s_logits, t_logits, labels, alpha=0.7):
    s_logp = F.log_softmax(s_logits / T, dim=-1)
    t_logp = F.log_softmax(t_logits / T, dim=-1)
    kd = F.kl_div(s_logp, t_logp, reduction="batchmean", log_target=True) * T * T
    ce = F.cross_entropy(s_logits, labels, label_smoothing=0.1)
    p = s_logits.softmax(-1)
    entropy = -(p * torch.nan_to_num(p.log(), neginf=0.0)).sum(-1).mean()
    return alpha * kd + (1 - alpha) * ce, entropy


@torch.compile
def train_step(x, labels):
    with torch.no_grad():
        t_logits = teacher(x)
    s_logits = student(x)
    loss, entropy = distill_loss(s_logits, t_logits, labels)
    agree = (s_logits.argmax(-1) == t_logits.argmax(-1)).float().mean()
    return loss, entropy.detach(), agree


x_all = torch.randn(1024, 24)
with torch.no_grad():
    y_all = teacher(x_all).argmax(-1)
for epoch in range(4):
    for i in range(0, 1024, 128):
        opt.zero_grad()
        loss, entropy, agree = train_step(x_all[i:i + 128], y_all[i:i + 128])
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f} entropy {entropy.item():.3f} agree {agree.item():.3f}")
