# Keyword classifier on log-mel features with SpecAugment inside the model (time and frequency
# masks, as torchaudio's TimeMasking / FrequencyMasking). The augmentation strength follows a
# curriculum: the maximum time-mask width grows every epoch (ESPnet / NeMo style schedules).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_MELS, FRAMES, CLASSES = 40, 200, 10


class SpecAugment(nn.Module):
    def __init__(self, max_time=10, max_freq=8):
        super().__init__()
        self.max_time = max_time
        self.max_freq = max_freq

    def mask(self, x, dim, max_width):
        B, size = x.size(0), x.size(dim)
        width = torch.randint(0, max_width + 1, (B, 1, 1))
        start = torch.randint(0, size - max_width, (B, 1, 1))
        pos = torch.arange(size).view(1, 1, size) if dim == 2 else torch.arange(size).view(1, size, 1)
        return x.masked_fill((pos >= start) & (pos < start + width), 0.0)

    def forward(self, x):
        if not self.training:
            return x
        x = self.mask(x, 2, self.max_time)
        return self.mask(x, 1, self.max_freq)


class KWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.specaug = SpecAugment()
        self.conv = nn.Sequential(nn.Conv1d(N_MELS, 64, 5, padding=2), nn.ReLU(),
                                  nn.Conv1d(64, 64, 5, padding=2, stride=2), nn.ReLU())
        self.fc = nn.Linear(64, CLASSES)

    def forward(self, feats):
        return self.fc(self.conv(self.specaug(feats)).mean(-1))


model = KWS()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
train_step_model = torch.compile(model)

for epoch in range(12):
    model.specaug.max_time = min(10 + 5 * epoch, 80)
    total = 0.0
    for _ in range(2):
        feats = torch.randn(16, N_MELS, FRAMES)
        labels = torch.randint(0, CLASSES, (16,))
        loss = F.cross_entropy(train_step_model(feats), labels)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        total += loss.item()
    print(f"epoch {epoch} max_time {model.specaug.max_time} loss {total / 2:.4f}")
