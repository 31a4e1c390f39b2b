"""pytorch/pytorch#196437 ("[dynamo] dynamic=True reuses a stale random.Random value after shape
specialization", https://github.com/pytorch/pytorch/issues/196437, open). A training script
shifts each batch by a random number of pixels, drawn from its own seeded random.Random (for a
reproducible run), inside a compiled augmentation step. Eager draws a new shift per batch; the
compiled step replays the shift of the call that compiled it when a later batch hits that cache
entry, and the Python generator is not advanced. The script checks its augmented batches
against a second, equally seeded eager pass, as the issue does, and that check fails."""
import random

import torch


def augment(images, rng):
    shift = rng.randint(0, 3)
    return torch.roll(images, shifts=shift, dims=-1)


compiled_augment = torch.compile(augment, dynamic=True)

torch.manual_seed(0)
batches = [torch.rand(n, 3, 8, 8) for n in (4, 4, 6, 6)]
rng_compiled, rng_eager = random.Random(1234), random.Random(1234)
for step, images in enumerate(batches):
    got = compiled_augment(images, rng_compiled)
    want = augment(images, rng_eager)
    print(step, "compiled", got[0, 0, 0, :3].tolist(), "eager", want[0, 0, 0, :3].tolist())
    torch.testing.assert_close(got, want)
