import torch
import torch.nn as nn

torch._dynamo.config.recompile_limit = len([16, 24, 32, 48, 64, 96, 128, 192, 256, 384])
torch.manual_seed(0)

# hyper-parameter ensemble: one member per hidden width
HIDDEN_WIDTHS = [16, 24, 32, 48, 64, 96, 128, 192, 256, 384]


def make_member(width):
    return nn.Sequential(nn.Linear(20, width), nn.GELU(), nn.Linear(width, 3))


members = [make_member(w) for w in HIDDEN_WIDTHS]
x = torch.randn(512, 20)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()


@torch.compile
def member_loss(net, xb, yb):
    return nn.functional.cross_entropy(net(xb), yb)


for width, net in zip(HIDDEN_WIDTHS, members):
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for step in range(15):
        idx = torch.arange(step * 32, step * 32 + 64) % 512
        loss = member_loss(net, x[idx], y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"width {width:3d} final loss {loss.item():.4f}")

with torch.no_grad():
    probs = torch.stack([m(x).softmax(-1) for m in members]).mean(0)
print(f"ensemble accuracy {(probs.argmax(-1) == y).float().mean():.3f}")
