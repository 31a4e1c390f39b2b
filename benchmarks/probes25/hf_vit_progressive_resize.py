"""Progressive resizing (train small, then at full resolution, as fast.ai / FixRes recipes do)
on a tiny random-weight ViT classifier; the compiled model interpolates its position
embeddings for each new image size."""
import torch
import torch.nn.functional as F
from transformers import ViTConfig, ViTForImageClassification

torch.manual_seed(0)
cfg = ViTConfig(image_size=64, patch_size=8, hidden_size=64, num_hidden_layers=2,
                num_attention_heads=4, intermediate_size=128, num_labels=10)
model = ViTForImageClassification(cfg)
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

schedule = [32, 32, 40, 40, 48, 48, 56, 56, 64, 64]  # image side per step
for step, side in enumerate(schedule):
    images = torch.randn(4, 3, side, side)
    labels = torch.randint(0, 10, (4,))
    logits = cmodel(pixel_values=images, interpolate_pos_encoding=True).logits
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(step, side, round(loss.item(), 4))
