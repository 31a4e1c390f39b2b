import torch
import torch.nn as nn

torch.manual_seed(0)


def make_member():
    return nn.Sequential(nn.Linear(20, 64), nn.GELU(), nn.Linear(64, 3))


members = [make_member() for _ in range(10)]
x = torch.randn(512, 20)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()


@torch.compile
def member_loss(net, xb, yb):
    return nn.functional.cross_entropy(net(xb), yb)


for i, net in enumerate(members):
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for step in range(20):
        idx = torch.randint(0, 512, (64,), generator=torch.Generator().manual_seed(i * 100 + step))
        loss = member_loss(net, x[idx], y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"member {i} final loss {loss.item():.4f}")

with torch.no_grad():
    probs = torch.stack([m(x).softmax(-1) for m in members]).mean(0)
print(f"ensemble accuracy {(probs.argmax(-1) == y).float().mean():.3f}")
