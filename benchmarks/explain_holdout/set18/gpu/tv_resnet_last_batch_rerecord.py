"""Evaluating a torchvision ResNet-18 on three splits with mode="reduce-overhead", channels_last
inputs and bfloat16 autocast, batch 64 with the last partial batch kept (drop_last=False, a
DataLoader's default): 300, 180 and 77 images leave last batches of 44, 52 and 13. The first
partial batch recompiles the model with a dynamic batch size (automatic dynamic); from then on
CUDA-graph trees record a new CUDA graph for every batch size the dynamic graph sees (44, 64
again, 52, 13), each recording with its own warm-up run and its own share of the graph pool,
for batches that come once per split. pytorch/pytorch#121968 (as PR #156551 summarises it:
"we would like to use cudagraph for batch size [1,2,3,...,16] and fallback for others") is the
request for CUDA graphs on chosen batch sizes only; Lightning-AI/litgpt#794 sets drop_last=True
so that a changing last batch does not recompile the model. The program exits 0.

Why it should reproduce on torch 2.11: by design. cudagraph_trees keys its recordings on the
SymInt inputs (cudagraphify_impl's fn_cache) and records once per new key; automatic dynamic
(the second size makes the batch dimension symbolic) is the default since 2.1; both are in the
2.13 wheel unchanged. torchvision.models.resnet18(weights=None, num_classes=...) is a long-stable
API; its forward has no graph break and no data-dependent op."""
import torch
import torchvision

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
BATCH = 64

model = torchvision.models.resnet18(weights=None, num_classes=10).cuda().eval()
model = model.to(memory_format=torch.channels_last)
compiled = torch.compile(model, mode="reduce-overhead")

splits = {"val": 300, "test": 180, "shifted": 77}  # last batches: 44, 52, 13
g = torch.Generator().manual_seed(0)
with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
    for name, n in splits.items():
        images = torch.randn(n, 3, 64, 64, generator=g)
        labels = torch.randint(0, 10, (n,), generator=g)
        correct = 0
        for start in range(0, n, BATCH):
            x = images[start:start + BATCH].cuda().contiguous(memory_format=torch.channels_last)
            logits = compiled(x)
            correct += (logits.argmax(1).cpu() == labels[start:start + BATCH]).sum().item()
        print(name, n, "accuracy", correct / n)
