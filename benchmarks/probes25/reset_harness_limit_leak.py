"""A small test harness: each test resets Dynamo and compiles the same pooling function again.
The first test pins the recompile limit to 1 to assert "exactly one graph" and never restores it;
torch._dynamo.reset() does not restore config, so the next test's second shape goes to eager."""
import torch
import torch.nn.functional as F


def pool_norm(x):
    return F.normalize(x.mean(dim=1), dim=-1) * 2.0


def test_single_graph():
    torch._dynamo.reset()
    torch._dynamo.config.recompile_limit = 1  # this test must compile exactly once
    f = torch.compile(pool_norm)
    for _ in range(3):
        f(torch.randn(4, 10, 8))
    print("test_single_graph ok")


def test_variable_lengths():
    torch._dynamo.reset()
    f = torch.compile(pool_norm)
    for length in (10, 17, 23, 31):
        out = f(torch.randn(4, length, 8))
        assert out.shape == (4, 8)
    print("test_variable_lengths ok")


test_single_graph()
test_variable_lengths()
