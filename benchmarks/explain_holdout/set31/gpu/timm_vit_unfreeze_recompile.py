"""Fine-tuning a small timm ViT (random weights stand in for a pretrained backbone) on CUDA with
gradual unfreezing: the backbone starts frozen, only the head trains, and every few steps one
more transformer block (top first), then the embeddings, get requires_grad=True. The model is
compiled once with torch.compile. Dynamo's tensor guards include requires_grad for every
parameter it lifts as a graph input, so each unfreeze fails a guard ("requires_grad mismatch")
and the forward and backward are compiled again: 5 compiles of the same model in 16 steps, and
with a deeper backbone the recompile limit (8) is hit and the model falls back to eager. The
fix: keep requires_grad fixed and freeze through the optimizer (param groups with lr 0, or a
per-group lr schedule), or unfreeze in a few coarse stages."""
import timm
import torch
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
torch.set_float32_matmul_precision("high")

model = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10, img_size=32,
                          patch_size=8, depth=3).to(device).train()
model.requires_grad_(False)
model.head.requires_grad_(True)
stages = [*reversed(model.blocks), model.patch_embed]
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
compiled = torch.compile(model)

images = torch.randn(256, 3, 32, 32, device=device)
labels = torch.randint(0, 10, (256,), device=device)
for step in range(16):
    if step % 4 == 3:
        stages[step // 4].requires_grad_(True)  # unfreeze the next stage
    sl = slice(step % 4 * 64, step % 4 * 64 + 64)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(compiled(images[sl]).float(), labels[sl])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 4 == 3:
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        print(f"step {step + 1}: loss {loss.item():.3f}, trainable {trainable}")
