"""Seq2seq load forecaster: GRU-cell encoder over 48 past hours, decoder for the next 12,
trained with scheduled teacher forcing."""
import random

import torch
import torch.nn as nn

random.seed(0)
torch.manual_seed(0)


class Seq2SeqForecaster(nn.Module):
    def __init__(self, n_feat=3, hidden=32):
        super().__init__()
        self.enc_in = nn.Linear(n_feat, hidden)
        self.encoder = nn.GRUCell(hidden, hidden)
        self.dec_in = nn.Linear(1, hidden)
        self.decoder = nn.GRUCell(hidden, hidden)
        self.head = nn.Linear(hidden, 1)

    def forward(self, past, target, tf_ratio):
        h = past.new_zeros(past.shape[0], self.encoder.hidden_size)
        for t in range(past.shape[1]):
            h = self.encoder(torch.tanh(self.enc_in(past[:, t])), h)
        prev = past[:, -1, :1]
        preds = []
        for t in range(target.shape[1]):
            h = self.decoder(torch.tanh(self.dec_in(prev)), h)
            step = self.head(h)
            preds.append(step)
            use_truth = torch.rand(()) < tf_ratio
            prev = target[:, t:t + 1] if use_truth else step
        return torch.cat(preds, dim=1)


model = Seq2SeqForecaster()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

series = torch.sin(torch.linspace(0, 60, 2000)).unsqueeze(-1) + 0.1 * torch.randn(2000, 1)
feats = torch.cat([series, series.roll(24, 0), series.roll(168, 0)], dim=1)

for epoch in range(3):
    tf_ratio = 0.8 - 0.3 * epoch
    starts = torch.randint(200, 1900 - 60, (16,))
    past = torch.stack([feats[s - 48:s] for s in starts.tolist()])
    future = torch.stack([series[s:s + 12, 0] for s in starts.tolist()])
    pred = compiled(past, future, tf_ratio)
    loss = nn.functional.mse_loss(pred, future)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} tf={tf_ratio:.1f} mse={loss.item():.4f}")
