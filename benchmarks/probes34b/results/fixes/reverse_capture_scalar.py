import torch
import torch.nn as nn

torch.manual_seed(0)
torch._dynamo.config.capture_scalar_outputs = True
EMB, HID, TAGS = 32, 32, 5


def reverse_padded(x, lengths):
    out = torch.zeros_like(x)
    for b in range(x.size(0)):
        n = lengths[b]
        out[b, :n] = x[b, :n].flip(0)
    return out


class BiGRUTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.fwd = nn.GRUCell(EMB, HID)
        self.bwd = nn.GRUCell(EMB, HID)
        self.tag = nn.Linear(2 * HID, TAGS)

    def run(self, cell, x):
        h, outs = x.new_zeros(x.size(0), HID), []
        for t in range(x.size(1)):
            h = cell(x[:, t], h)
            outs.append(h)
        return torch.stack(outs, 1)

    def forward(self, x, lengths):
        f = self.run(self.fwd, x)
        b = reverse_padded(self.run(self.bwd, reverse_padded(x, lengths)), lengths)
        return self.tag(torch.cat([f, b], -1))


model = BiGRUTagger()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(5):
    lengths = torch.randint(3, 9, (6,))
    x = torch.randn(6, 8, EMB)
    tags = torch.randint(0, TAGS, (6, 8))
    mask = torch.arange(8)[None, :] < lengths[:, None]
    logits = compiled(x, lengths)
    loss = nn.functional.cross_entropy(logits[mask], tags[mask])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
