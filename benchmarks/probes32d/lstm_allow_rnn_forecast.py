"""LSTM forecaster for hourly sensor temperature; RNN tracing turned on for torch.compile."""
import torch
import torch.nn as nn

torch._dynamo.config.allow_rnn = True
torch.manual_seed(0)


class LSTMForecaster(nn.Module):
    def __init__(self, n_feat=4, hidden=48, horizon=6):
        super().__init__()
        self.lstm = nn.LSTM(n_feat, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, window):
        out, _ = self.lstm(window)
        return self.head(out[:, -1])


t = torch.arange(3000, dtype=torch.float32)
temp = 20 + 5 * torch.sin(2 * torch.pi * t / 24) + 0.5 * torch.randn(3000)
feats = torch.stack([temp, torch.sin(2 * torch.pi * t / 24), torch.cos(2 * torch.pi * t / 24),
                     torch.sin(2 * torch.pi * t / 168)], dim=1)
feats[:, 0] = (feats[:, 0] - temp.mean()) / temp.std()

model = LSTMForecaster()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(3):
    starts = torch.randint(0, 3000 - 72 - 6, (32,))
    x = torch.stack([feats[s:s + 72] for s in starts.tolist()])
    y = torch.stack([feats[s + 72:s + 78, 0] for s in starts.tolist()])
    loss = nn.functional.mse_loss(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} mse={loss.item():.4f}")
