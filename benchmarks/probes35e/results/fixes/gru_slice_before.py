# Variable-length batches of sequences are padded to a fixed width; the compiled encoder
# unrolls a GRUCell only up to the longest sequence of the batch (n_steps = lengths.max()),
# to save the work on padding.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self, d_in=8, d_h=16):
        super().__init__()
        self.cell = nn.GRUCell(d_in, d_h)
        self.d_h = d_h

    def forward(self, x, lengths, n_steps: int):
        h = x.new_zeros(x.shape[0], self.d_h)
        for t in range(x.shape[1]):
            h_new = self.cell(x[:, t], h)
            alive = (t < lengths).unsqueeze(-1)
            h = torch.where(alive, h_new, h)
        return h


enc = Encoder()
cenc = torch.compile(enc)
MAXW = 12

with torch.no_grad():
    for b in range(12):
        lengths = torch.randint(2, MAXW + 1, (4,))
        x = torch.randn(4, MAXW, 8)
        n_steps = int(lengths.max())
        h = cenc(x[:, :n_steps], lengths, n_steps)
        print(f"batch {b}: n_steps {n_steps} h {h.sum().item():.4f}")
