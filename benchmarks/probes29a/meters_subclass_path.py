import torch


class Meters(torch.Tensor):
    """Marks a tensor of GPS track points (in meters) so helpers can check units."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        return super().__torch_function__(func, types, args, kwargs)


def track_stats(points):
    seg = points[1:] - points[:-1]
    dist = seg.norm(dim=-1)
    return dist.sum(), dist.max()


fast_stats = torch.compile(track_stats)
torch.manual_seed(0)
for ride in range(4):
    n = 200 + 25 * ride
    steps = torch.randn(n, 3) * torch.tensor([4.0, 4.0, 0.3])
    track = steps.cumsum(0).as_subclass(Meters)
    total, longest = fast_stats(track)
    print(f"ride {ride}: {n} points, {float(total):.1f} m, longest step {float(longest):.2f} m")
