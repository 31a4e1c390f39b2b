import torch

torch.manual_seed(0)

# Weather states: sunny, cloudy, rainy, stormy, foggy.
STATES = ["sunny", "cloudy", "rainy", "stormy", "foggy"]
counts = torch.tensor([
    [70., 15., 8., 2., 5.],
    [30., 40., 20., 5., 5.],
    [15., 30., 40., 10., 5.],
    [10., 20., 40., 25., 5.],
    [25., 35., 15., 5., 20.],
])
transition = counts / counts.sum(dim=1, keepdim=True)


@torch.compile
def forecast(transition, today, horizon):
    p_k = torch.linalg.matrix_power(transition, horizon)
    dist = today @ p_k
    entropy = -(dist * dist.clamp_min(1e-12).log()).sum(-1)
    return dist, entropy


stations_today = torch.nn.functional.one_hot(torch.randint(0, 5, (32,)), 5).float()
for horizon in range(1, 15):
    dist, entropy = forecast(transition, stations_today, torch.tensor(horizon))
    rain = dist[:, 2:4].sum(-1).mean().item()
    print(f"day +{horizon:2d}: mean P(rain or storm) = {rain:.4f}, "
          f"mean entropy = {entropy.mean().item():.4f}")
