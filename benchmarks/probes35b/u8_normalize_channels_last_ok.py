# Inference preprocessing compiled with the model: a uint8 HWC batch (as decoded images come)
# is permuted to NCHW, converted to float in [0, 1], normalised with the ImageNet per-channel
# mean/std lists, and fed to a channels_last CNN; the whole thing under fullgraph=True.
import torch
import torch.nn as nn

torch.manual_seed(0)

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


class Classifier(nn.Module):
    def __init__(self, n_cls=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.head = nn.Linear(32, n_cls)

    def forward(self, img_hwc_u8):
        x = img_hwc_u8.permute(0, 3, 1, 2).float().div(255.0)
        mean = torch.tensor(MEAN, device=x.device).view(1, 3, 1, 1)
        std = torch.tensor(STD, device=x.device).view(1, 3, 1, 1)
        x = ((x - mean) / std).contiguous(memory_format=torch.channels_last)
        return self.head(self.features(x).mean((2, 3)))


model = Classifier().eval().to(memory_format=torch.channels_last)
cmodel = torch.compile(model, fullgraph=True)

with torch.no_grad():
    for batch in range(4):
        imgs = torch.randint(0, 256, (6, 32, 32, 3), dtype=torch.uint8)
        logits = cmodel(imgs)
        ref = model(imgs)
        print(f"batch {batch} pred {logits.argmax(1).tolist()} "
              f"logit0 {logits[0, 0].item():.4f} matches eager {torch.allclose(logits, ref, atol=1e-5)}")
