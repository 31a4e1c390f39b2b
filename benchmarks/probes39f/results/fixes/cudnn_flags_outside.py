# Speech encoder (GRUCell unrolled over frames) whose forward pins cuDNN off, as CTC recipes do.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class FrameEncoder(nn.Module):
    def __init__(self, feat=8, hidden=16, vocab=5):
        super().__init__()
        self.cell = nn.GRUCell(feat, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x):
        h = x.new_zeros(x.size(0), self.cell.hidden_size)
        outs = []
        for t in range(x.size(1)):
            h = self.cell(x[:, t], h)
            outs.append(self.out(h))
        return torch.stack(outs, 1).log_softmax(-1)


model = FrameEncoder()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(4):
    x = torch.randn(4, 6, 8)
    labels = torch.randint(0, 5, (4, 6))
    with torch.backends.cudnn.flags(enabled=False, deterministic=True):
        logp = cmodel(x)
    loss = F.nll_loss(logp.reshape(-1, 5), labels.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
