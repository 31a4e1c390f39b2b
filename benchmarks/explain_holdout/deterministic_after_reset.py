"""intel/torch-xpu-ops#1501 ("Fix TorchDynamo Cache Issue": with deterministic mode on, tests
call torch._dynamo.reset() to compile again) and pytorch/pytorch#113707: a test harness
compiles a function, turns deterministic algorithms on, resets Dynamo and compiles it again;
the second compile cannot reuse the first one's cached graph."""
import torch


def scale(x):
    return torch.nn.functional.pad(x, (1, 1), mode="reflect") * 3


x = torch.randn(2, 16)
torch.compile(scale)(x)
torch.use_deterministic_algorithms(True)
torch._dynamo.reset()
torch.compile(scale)(x)
