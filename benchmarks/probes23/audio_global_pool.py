"""An audio classifier over variable-length clips that pools over time with
F.avg_pool1d(h, kernel_size=h.size(-1)) (a common "global average pool" idiom): kernel_size is
an int, so the clip length that automatic dynamic shapes made symbolic is specialised back to
a constant and every new length recompiles (the class of pytorch/pytorch#99091, a size used as a
Python int)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ClipClassifier(nn.Module):
    def __init__(self, n_mels=20, classes=6):
        super().__init__()
        self.conv1 = nn.Conv1d(n_mels, 32, 3, padding=1)
        self.conv2 = nn.Conv1d(32, 32, 3, padding=1)
        self.out = nn.Linear(32, classes)

    def forward(self, mel):
        h = F.relu(self.conv1(mel))
        h = F.relu(self.conv2(h))
        pooled = F.avg_pool1d(h, kernel_size=h.size(-1)).squeeze(-1)
        return self.out(pooled)


model = ClipClassifier().eval()
classify = torch.compile(model)
clip_frames = [40, 57, 63, 71, 88, 95]
with torch.no_grad():
    for frames in clip_frames:
        mel = torch.randn(2, 20, frames)
        logits = classify(mel)
        print(frames, logits.argmax(-1).tolist())
