# Character-level RNN name classifier (the PyTorch "classifying names with a character-level
# RNN" tutorial): letters are one-hot encoded and fed to an RNNCell-style loop.
# The whole forward, one-hot encoding included, is compiled.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
LETTERS = "abcdefghijklmnopqrstuvwxyz"
N_LETTERS, HID, N_CLASSES = len(LETTERS), 16, 3


class CharRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.i2h = nn.Linear(N_LETTERS, HID)
        self.h2h = nn.Linear(HID, HID)
        self.h2o = nn.Linear(HID, N_CLASSES)

    def forward(self, char_ids):
        x = F.one_hot(char_ids, N_LETTERS).float()                  # (T, n_letters_seen)
        x = F.pad(x, (0, N_LETTERS - x.size(1)))
        h = torch.zeros(1, HID)
        for t in range(x.size(0)):
            h = torch.tanh(self.i2h(x[t : t + 1]) + self.h2h(h))
        return F.log_softmax(self.h2o(h), dim=1)


def encode(name):
    return torch.tensor([LETTERS.index(c) for c in name])


model = CharRNN().eval()
cmodel = torch.compile(model)
with torch.no_grad():
    for name in ["abel", "olga", "ivan", "zhou"]:
        out = cmodel(encode(name))
        ref = model(encode(name))
        print(f"{name:8s} class {out.argmax().item()} max|diff| {(out - ref).abs().max().item():.1e}")
