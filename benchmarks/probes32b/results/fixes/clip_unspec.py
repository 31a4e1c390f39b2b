import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.compiler.config.allow_unspec_int_on_nn_module = True


class ClipLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.prev_num_logits = 0
        self.labels = {}

    def get_labels(self, num_logits):
        if self.prev_num_logits != num_logits or "cpu" not in self.labels:
            labels = torch.arange(num_logits, dtype=torch.long)
            self.labels["cpu"] = labels
            self.prev_num_logits = num_logits
        return self.labels["cpu"]

    def forward(self, image_features, text_features, logit_scale):
        logits_per_image = logit_scale * image_features @ text_features.T
        logits_per_text = logits_per_image.T
        labels = self.get_labels(logits_per_image.shape[0])
        return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2


image_tower = nn.Sequential(nn.Linear(96, 128), nn.GELU(), nn.Linear(128, 32))
text_tower = nn.Sequential(nn.Embedding(500, 64), nn.Flatten(), nn.Linear(64 * 8, 32))
logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))
params = list(image_tower.parameters()) + list(text_tower.parameters()) + [logit_scale]
opt = torch.optim.AdamW(params, lr=5e-4)
loss_fn = torch.compile(ClipLoss())

for step in range(12):
    images, captions = torch.randn(32, 96), torch.randint(0, 500, (32, 8))
    caption_len = torch.randint(1, 9, (32,))
    keep = caption_len >= 3
    images, captions = images[keep], captions[keep]
    img = F.normalize(image_tower(images), dim=-1)
    txt = F.normalize(text_tower(captions), dim=-1)
    loss = loss_fn(img, txt, logit_scale.exp())
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        logit_scale.clamp_(0, math.log(100))
    print(f"step {step} batch {len(images)} loss {loss.item():.4f}")
