import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_FFT, HOP = 256, 64


class SpecClassifier(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.conv = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(16, n_classes)

    def forward(self, wave):
        spec = torch.stft(wave, N_FFT, hop_length=HOP, window=self.window, return_complex=True)
        mag = torch.log1p(spec.abs())
        h = self.conv(mag.unsqueeze(1))
        return self.fc(h.flatten(1))


model = SpecClassifier()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(6):
    wave = torch.randn(4, 8000)
    labels = torch.randint(0, 5, (4,))
    loss = F.cross_entropy(compiled(wave), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
