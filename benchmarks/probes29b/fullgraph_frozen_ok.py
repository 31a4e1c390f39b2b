import torch
import torch.nn as nn

torch._inductor.config.freezing = True
torch.manual_seed(0)


class KeywordSpotter(nn.Module):
    def __init__(self, n_mels=40, n_words=10):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(n_mels, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU(),
        )
        self.head = nn.Linear(64, n_words)

    def forward(self, mels):
        return self.head(self.conv(mels).mean(dim=-1))


model = KeywordSpotter().eval()
spotter = torch.compile(model, fullgraph=True, dynamic=True)

with torch.no_grad():
    for i, (batch, frames) in enumerate([(8, 100), (3, 100), (8, 61), (5, 140)]):
        mels = torch.randn(batch, 40, frames)
        words = spotter(mels).argmax(-1)
        ref = model(mels).argmax(-1)
        print(f"chunk {i}: {batch}x{frames} words {words.tolist()} agree={torch.equal(words, ref)}")
