import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, HID, BPTT = 50, 64, 8


class CharRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HID)
        self.cell = nn.GRUCell(HID, HID)
        self.out = nn.Linear(HID, VOCAB)
        self.state = None

    def forward(self, chunk):
        if self.state is None:
            self.state = torch.zeros(chunk.size(0), HID)
        h = self.state
        logits = []
        for t in range(chunk.size(1)):
            h = self.cell(self.emb(chunk[:, t]), h)
            logits.append(self.out(h))
        self.state = h.detach()
        return torch.stack(logits, 1)


model = CharRNN()
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
stream = torch.randint(0, VOCAB, (8, 4 * BPTT + 1))

for epoch in range(2):
    model.state = torch.zeros(stream.size(0), HID)
    total = 0.0
    for i in range(0, stream.size(1) - 1, BPTT):
        x, y = stream[:, i:i + BPTT], stream[:, i + 1:i + 1 + BPTT]
        logits = compiled(x)
        loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} mean loss {total / 4:.4f}")
