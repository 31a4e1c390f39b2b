import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch._dynamo.config.capture_scalar_outputs = True

np.random.seed(0)
torch.manual_seed(0)


class KeywordSpotter(nn.Module):
    def __init__(self, n_mels=40, n_words=10):
        super().__init__()
        self.conv = nn.Conv1d(n_mels, 64, 5, padding=2)
        self.head = nn.Linear(64, n_words)

    def forward(self, mels):
        if self.training:
            gain_db = np.random.uniform(-6.0, 6.0)
            mels = mels + gain_db / 10.0
        h = F.relu(self.conv(mels))
        return self.head(h.mean(dim=-1))


model = KeywordSpotter()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(8):
    mels = torch.randn(16, 40, 100)
    words = torch.randint(0, 10, (16,))
    loss = F.cross_entropy(cmodel(mels), words)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
