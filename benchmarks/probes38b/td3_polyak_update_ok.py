# TD3 critic update: twin critics, clipped target-policy smoothing noise (drawn outside the
# compiled step), min of the twin targets, Polyak averaging of the targets with _foreach_lerp_.
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
S, A, TAU, GAMMA = 5, 2, 0.005, 0.99


def mlp(i, o):
    return nn.Sequential(nn.Linear(i, 32), nn.ReLU(), nn.Linear(32, o))


def make():
    torch.manual_seed(0)
    actor, q1, q2 = mlp(S, A), mlp(S + A, 1), mlp(S + A, 1)
    return actor, q1, q2, copy.deepcopy(actor), copy.deepcopy(q1), copy.deepcopy(q2)


def critic_loss(nets, s, a, r, s2, d, noise):
    actor, q1, q2, actor_t, q1_t, q2_t = nets
    with torch.no_grad():
        a2 = (torch.tanh(actor_t(s2)) + noise.clamp(-0.5, 0.5)).clamp(-1.0, 1.0)
        x2 = torch.cat([s2, a2], -1)
        y = r + GAMMA * (1.0 - d) * torch.min(q1_t(x2), q2_t(x2)).squeeze(-1)
    x = torch.cat([s, a], -1)
    return (q1(x).squeeze(-1) - y).pow(2).mean() + (q2(x).squeeze(-1) - y).pow(2).mean()


@torch.no_grad()
def polyak(nets):
    for net, tgt in ((nets[1], nets[4]), (nets[2], nets[5])):
        torch._foreach_lerp_(list(tgt.parameters()), list(net.parameters()), TAU)


results = {}
for mode in ("eager", "compiled"):
    nets = make()
    opt = torch.optim.Adam(list(nets[1].parameters()) + list(nets[2].parameters()), lr=1e-3)
    loss_fn = torch.compile(critic_loss) if mode == "compiled" else critic_loss
    update = torch.compile(polyak) if mode == "compiled" else polyak
    torch.manual_seed(1)
    losses = []
    for _ in range(5):
        s, a, r, s2 = torch.randn(64, S), torch.rand(64, A) * 2 - 1, torch.randn(64), torch.randn(64, S)
        d, noise = (torch.rand(64) < 0.1).float(), torch.randn(64, A) * 0.2
        loss = loss_fn(nets, s, a, r, s2, d, noise)
        opt.zero_grad()
        loss.backward()
        opt.step()
        update(nets)
        losses.append(loss.detach())
    results[mode] = (torch.stack(losses), torch.cat([p.flatten() for p in nets[4].parameters()]))
    print(mode, [round(x, 4) for x in results[mode][0].tolist()])
print("loss diff", (results["eager"][0] - results["compiled"][0]).abs().max().item() < 1e-4)
print("target diff", (results["eager"][1] - results["compiled"][1]).abs().max().item() < 1e-5)
