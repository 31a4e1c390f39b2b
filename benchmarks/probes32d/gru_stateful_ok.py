"""Stateful GRU for a streaming sensor: the hidden state is carried (detached) from one
chunk to the next, truncated backprop through time."""
import torch
import torch.nn as nn

torch._dynamo.config.allow_rnn = True
torch.manual_seed(0)


class StreamGRU(nn.Module):
    def __init__(self, n_feat=6, hidden=32):
        super().__init__()
        self.gru = nn.GRU(n_feat, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, chunk, h0):
        self.gru.flatten_parameters()
        out, h = self.gru(chunk, h0)
        return self.head(out).squeeze(-1), h


model = StreamGRU()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)

n_streams, chunk_len = 16, 12
signal = torch.randn(n_streams, chunk_len * 5, 6).cumsum(1) * 0.05
target = signal[..., 0].roll(-1, dims=1)
h = torch.zeros(1, n_streams, 32)
for k in range(5):
    x = signal[:, k * chunk_len:(k + 1) * chunk_len]
    y = target[:, k * chunk_len:(k + 1) * chunk_len]
    pred, h = compiled(x, h)
    h = h.detach()
    loss = nn.functional.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"chunk {k} mse={loss.item():.5f}")
