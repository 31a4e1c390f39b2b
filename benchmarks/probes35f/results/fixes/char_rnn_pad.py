# Classifying names with a character-level RNN (the PyTorch "NLP from scratch" tutorial),
# with the per-name forward compiled.
import string
import torch
import torch.nn as nn

torch.manual_seed(0)
all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)
categories = ["English", "French", "Italian", "Japanese"]


def line_to_tensor(line):
    t = torch.zeros(12, 1, n_letters)
    for li, letter in enumerate(line):
        t[li][0][all_letters.find(letter)] = 1
    return t


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)

    def forward(self, line_tensor, n):
        hidden = torch.zeros(1, self.hidden_size)
        for i in range(line_tensor.size(0)):
            combined = torch.cat((line_tensor[i], hidden), 1)
            hidden = torch.where(i < n, torch.tanh(self.i2h(combined)), hidden)
        return torch.log_softmax(self.h2o(hidden), dim=1)


rnn = RNN(n_letters, 32, len(categories))
model = torch.compile(rnn)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.05)
names = [("Smith", 0), ("Dubois", 1), ("Rossi", 2), ("Sato", 3), ("Abbott", 0),
         ("Bernard", 1), ("Bianchi", 2), ("Nakamura", 3), ("Ng", 3), ("Lefebvre", 1),
         ("Esposito", 2), ("Fitzgerald", 0), ("Yamamoto", 3), ("Moreau", 1),
         ("Romano", 2), ("Hughes", 0), ("Takahashi", 3), ("Lambert", 1), ("Ito", 3)]

for epoch in range(2):
    total = 0.0
    for name, cat in names:
        optimizer.zero_grad()
        out = model(line_to_tensor(name), torch.tensor(len(name)))
        loss = nn.functional.nll_loss(out, torch.tensor([cat]))
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch} loss {total / len(names):.4f}")
