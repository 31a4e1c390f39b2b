import torch
import torch.nn as nn

torch.manual_seed(0)


class ImageEmbedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.proj = nn.Linear(32, 24)

    def forward(self, images):
        return nn.functional.normalize(self.proj(self.features(images).flatten(1)), dim=-1)


model = ImageEmbedder().eval().to(torch.bfloat16)
embed = torch.compile(model)

gallery = torch.randn(10, 24)
gallery = nn.functional.normalize(gallery, dim=-1).to(torch.bfloat16)
with torch.inference_mode():
    for batch_size in [4, 1, 7, 4, 2, 7]:
        images = torch.randn(batch_size, 3, 32, 32, dtype=torch.bfloat16)
        torch._dynamo.maybe_mark_dynamic(images, 0)
        emb = embed(images)
        nearest = (emb @ gallery.T).argmax(-1)
        print(f"batch {batch_size}: nearest {nearest.tolist()}")
