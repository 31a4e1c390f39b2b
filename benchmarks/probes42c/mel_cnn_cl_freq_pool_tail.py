"""Keyword-spotting CNN on log-mel spectrograms, run channels_last for CPU speed.

The conv trunk produces (batch, channels, time, mel) maps; a fixed band weighting
over the mel axis (a (mel, 1) vector that emphasises the speech bands, applied with
matmul) collapses frequency, then a temporal mean and a linear head give logits.
Inference over a few batches of a validation set is compiled.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_MELS, FRAMES, N_CLASSES = 40, 49, 12


class KWSNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 24, 3, padding=1)
        self.conv2 = nn.Conv2d(24, 40, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(40)
        bands = torch.linspace(0, 1, N_MELS // 2)
        band_w = torch.exp(-((bands - 0.35) ** 2) / 0.05)            # speech-band emphasis
        self.register_buffer("freq_w", (band_w / band_w.sum()).unsqueeze(1))
        self.head = nn.Linear(40, N_CLASSES)

    def forward(self, mel):                          # mel: (B, 1, time, mel)
        x = F.relu(self.conv1(mel))
        x = F.max_pool2d(x, (1, 2))                  # halve the mel axis
        x = F.gelu(self.bn2(self.conv2(x)))          # (B, 40, T, N_MELS/2), channels_last
        x = torch.matmul(x, self.freq_w).squeeze(-1) # band-weighted pooling over mel -> (B, 40, T)
        return self.head(x.mean(-1))


model = KWSNet().eval().to(memory_format=torch.channels_last)
predict = torch.compile(model)

val = [torch.randn(8, 1, FRAMES, N_MELS).contiguous(memory_format=torch.channels_last) for _ in range(4)]
labels = [torch.randint(0, N_CLASSES, (8,)) for _ in range(4)]

correct = 0
total_logit = 0.0
with torch.no_grad():
    for x, y in zip(val, labels):
        logits = predict(x)
        correct += (logits.argmax(-1) == y).sum().item()
        total_logit += logits.abs().sum().item()
print("val accuracy: %d/%d" % (correct, 8 * len(val)))
print("mean |logit|: %.4f" % (total_logit / (8 * len(val) * N_CLASSES)))
