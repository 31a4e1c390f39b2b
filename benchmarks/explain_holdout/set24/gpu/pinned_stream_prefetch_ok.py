"""Inference with a prefetching copy stream: the next pinned batch is copied host-to-device on a
side stream (non_blocking) while the compiled model runs the current one; an event orders them.
All stream, event and pinned-memory handling stays outside the compiled model."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10),
).to(device).eval()
compiled = torch.compile(model)

host_batches = [torch.randn(64, 3, 64, 64).pin_memory() for _ in range(6)]
copy_stream = torch.cuda.Stream()


def prefetch(i):
    with torch.cuda.stream(copy_stream):
        dev = host_batches[i].to(device, non_blocking=True)
        ready = torch.cuda.Event()
        ready.record(copy_stream)
    return dev, ready


with torch.inference_mode():
    nxt = prefetch(0)
    for i in range(len(host_batches)):
        x, ready = nxt
        torch.cuda.current_stream().wait_event(ready)
        x.record_stream(torch.cuda.current_stream())
        if i + 1 < len(host_batches):
            nxt = prefetch(i + 1)
        logits = compiled(x)
        print(f"batch {i}: predicted classes {logits.argmax(dim=1)[:8].tolist()}")
