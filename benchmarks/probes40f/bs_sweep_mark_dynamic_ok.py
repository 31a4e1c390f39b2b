# Correct version of a batch-size throughput sweep: compiled with dynamic=False (H/W static),
# the batch dimension marked dynamic AFTER the channels_last conversion, one warm-up call, then
# the sweep runs under set_stance("fail_on_recompile") to prove that one graph serves every
# batch size.  (The sweep stays at 16 and above: on CPU the conv backend choice guards on
# batch < 16 vs >= 16, so crossing 16 would recompile once even with the mark.)
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10),
).eval().to(memory_format=torch.channels_last)
cmodel = torch.compile(model, dynamic=False)


def make_batch(bs):
    images = torch.randn(bs, 3, 32, 32).to(memory_format=torch.channels_last)
    torch._dynamo.mark_dynamic(images, 0)
    return images


with torch.no_grad():
    cmodel(make_batch(32))  # warm-up compile
    with torch.compiler.set_stance("fail_on_recompile"):
        for bs in (16, 24, 32, 48, 64, 128):
            images = make_batch(bs)
            logits = cmodel(images)
            err = (logits - model(images)).abs().max().item()
            print(f"batch {bs}: logits {tuple(logits.shape)} max|diff| {err:.1e}")
