"""torch's own test suite, test/dynamo_expected_failures/TestGradNewOnesOverride.test_newones
(test/test_overrides.py::TestGradNewOnesOverride::test_newones, the regression test of
pytorch/pytorch gh-47069: a tensor subclass's `new_ones` must keep the subclass). The file in
dynamo_expected_failures marks it as failing when the test body runs under Dynamo
(PYTORCH_TEST_WITH_DYNAMO=1); the entry carries no reason text.

A user program: a tensor subclass that tags a batch with its units overrides `new_ones` so
masks made from it keep the tag, and a compiled padding step builds its mask with
`x.new_ones(...)`. On torch 2.13 Dynamo cannot trace the overridden method: a graph break
"Tensor subclass overridden method call" (GB0103) inside the override, then Dynamo gives up on
the whole step and runs it in eager on every call."""
import torch


class Tagged(torch.Tensor):
    def new_ones(self, *size, **kwargs):
        ones = super().new_ones(*size, **kwargs)
        return ones.as_subclass(Tagged)


@torch.compile
def pad_step(x):
    mask = x.new_ones(x.shape[0], 2)
    return torch.cat([x, mask], dim=1) * 0.5


torch.manual_seed(0)
x = torch.randn(4, 3).as_subclass(Tagged)
for _ in range(3):
    out = pad_step(x)
print(type(out).__name__, tuple(out.shape), round(float(out.sum()), 4))
