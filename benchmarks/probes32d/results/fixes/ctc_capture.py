"""Tiny keyword recogniser on 40-band log-mel frames, trained with CTC."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch._dynamo.config.capture_dynamic_output_shape_ops = True
N_MELS, N_CHARS = 40, 28  # blank + a-z + space


class ConvCTC(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(N_MELS, 64, 5, padding=2), nn.GELU(),
            nn.Conv1d(64, 64, 5, padding=2), nn.GELU(),
        )
        self.proj = nn.Linear(64, N_CHARS)

    def forward(self, mels):
        return self.proj(self.conv(mels).transpose(1, 2))


model = ConvCTC()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)


@torch.compile
def train_loss(mels, targets, frame_lens, target_lens):
    logits = model(mels)
    log_probs = logits.log_softmax(-1).transpose(0, 1)  # (T, B, C)
    return F.ctc_loss(log_probs, targets, frame_lens, target_lens, blank=0, zero_infinity=True)


for step in range(5):
    frames = 80
    mels = torch.randn(6, N_MELS, frames)
    frame_lens = torch.randint(50, frames + 1, (6,))
    target_lens = torch.randint(5, 15, (6,))
    targets = torch.randint(1, N_CHARS, (6, 15))
    loss = train_loss(mels, targets, frame_lens, target_lens)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} ctc={loss.item():.3f}")
