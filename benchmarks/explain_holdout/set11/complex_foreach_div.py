"""pytorch/pytorch#197376 ("`torch.compile` (inductor) crashes on in-place complex
foreach-divide", open): a phase-rotation step over a list of complex filter taps, done in place
with one foreach divide by the complex scalar 1j. Eager rotates the taps; Inductor fails while
lowering the in-place complex foreach op with an internal assertion
(`InductorError: AssertionError: <built-in function getitem> is not an OpOverload`)."""
import torch

taps = [torch.randn(16, dtype=torch.complex64) for _ in range(3)]


@torch.compile
def rotate(taps):
    torch._foreach_div_(taps, 1j)
    return [t.abs().sum() for t in taps]


for step in range(3):
    energy = rotate(taps)
    print(step, [round(e.item(), 3) for e in energy])
