# Character-level language model (practical-pytorch "char-rnn generation" style):
# an LSTMCell decoder trained on a tiny text, then a compiled sampling function.
import torch
import torch.nn as nn

torch.manual_seed(0)
text = "hello world, hello torch. the quick brown fox jumps over the lazy dog. " * 4
all_characters = sorted(set(text))
n_chars = len(all_characters)


def char_tensor(s):
    return torch.tensor([all_characters.index(c) for c in s], dtype=torch.long)


class CharRNN(nn.Module):
    def __init__(self, n, hidden=64):
        super().__init__()
        self.hidden = hidden
        self.embed = nn.Embedding(n, hidden)
        self.cell = nn.LSTMCell(hidden, hidden)
        self.out = nn.Linear(hidden, n)

    def init_hidden(self):
        return torch.zeros(1, self.hidden), torch.zeros(1, self.hidden)

    def forward(self, inp, hidden):
        h, c = self.cell(self.embed(inp), hidden)
        return self.out(h), (h, c)


decoder = CharRNN(n_chars)
opt = torch.optim.Adam(decoder.parameters(), lr=0.01)
data = char_tensor(text)
for step in range(30):
    start = (step * 17) % (len(data) - 21)
    chunk = data[start:start + 21]
    hidden = decoder.init_hidden()
    loss = 0.0
    for t in range(20):
        out, hidden = decoder(chunk[t:t + 1], hidden)
        loss = loss + nn.functional.cross_entropy(out, chunk[t + 1:t + 2])
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"final loss {loss.item() / 20:.4f}")


@torch.compile
def generate(prime_str="h", predict_len=40, temperature=0.8):
    hidden = decoder.init_hidden()
    inp = char_tensor(prime_str)
    ids = []
    with torch.no_grad():
        for p in range(predict_len):
            output, hidden = decoder(inp, hidden)
            output_dist = output.view(-1).div(temperature).exp()
            top_i = torch.multinomial(output_dist, 1)[0]
            ids.append(top_i)
            inp = top_i.view(1)
    return torch.stack(ids)


torch.manual_seed(1)
print(repr("h" + "".join(all_characters[i] for i in generate().tolist())))
print(repr("t" + "".join(all_characters[i] for i in generate("t").tolist())))
