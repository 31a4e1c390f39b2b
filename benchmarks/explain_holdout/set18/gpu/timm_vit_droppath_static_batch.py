"""Training a small timm ViT with stochastic depth (drop_path_rate=0.1, so every block's DropPath
draws a per-sample mask in train mode) under float16 autocast with a GradScaler and AdamW, the
model compiled with torch.compile(model, dynamic=False) to keep static-shape kernels. The loader
keeps its last partial batch (drop_last=False): 200 images in batches of 64 end each epoch with a
batch of 8. dynamic=False turns automatic dynamic shapes off, so that batch recompiles the model
(forward and backward) for batch size 8: guard "tensor 'x' size mismatch at index 0. expected
64, actual 8", on the last step of the first epoch. The docs quoted in kijai/ComfyUI-KJNodes#454
say so: "If you say torch.compile(dynamic=False), we will turn off automatic dynamic shapes on
recompiles and always recompile for each distinct size"; pytorch/pytorch PR #98337's review
("You might reasonably have a number of different batch sizes that you want to run static
shapes with") and Lightning-AI/litgpt#794 (drop_last=True so "the shape" does not change and
"trigger torch to recompile the model's forward pass") are the use and the fix. The program
exits 0.

Why it should reproduce on torch 2.11: by design. dynamic=False sets assume_static_by_default
and turns automatic_dynamic_shapes off (torch/__init__.py, torch/_dynamo/eval_frame.py), so a new
size is a size-guard failure and a static recompile, as in every release since 2.1 and in the
2.13 wheel. timm's drop_path (x.new_empty((B, 1, 1)).bernoulli_(keep_prob)) and
timm.create_model's ViT keywords (img_size, patch_size, drop_path_rate) are in every timm release
since 0.6; the ViT forward has no graph break (SDPA attention)."""
import timm
import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
N, BATCH = 200, 64  # last batch of each epoch: 8

model = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10, img_size=32,
                          patch_size=4, drop_path_rate=0.1).cuda().train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")
compiled = torch.compile(model, dynamic=False)

g = torch.Generator().manual_seed(0)
images = torch.randn(N, 3, 32, 32, generator=g)
labels = torch.randint(0, 10, (N,), generator=g)
for epoch in range(2):
    perm = torch.randperm(N, generator=g)
    for start in range(0, N, BATCH):
        idx = perm[start:start + BATCH]
        x, y = images[idx].cuda(), labels[idx].cuda()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(compiled(x), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    print("epoch", epoch, "loss", loss.item())
