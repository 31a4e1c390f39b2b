# Char LM with a max_norm embedding (renormalises used rows in place) and a compiled greedy
# decoder that feeds argmax tokens back for a fixed number of steps (no .item() in the loop).
import torch
import torch.nn as nn

torch.manual_seed(0)
V, E, H = 20, 8, 16


class CharLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E, max_norm=1.0)
        self.cell = nn.GRUCell(E, H)
        self.out = nn.Linear(H, V)

    def forward(self, prompt, steps: int):
        h = prompt.new_zeros(prompt.size(0), H, dtype=torch.float)
        for t in range(prompt.size(1)):
            h = self.cell(self.emb(prompt[:, t]), h)
        tok, generated = prompt[:, -1], []
        for _ in range(steps):
            h = self.cell(self.emb(tok), h)
            tok = self.out(h).argmax(-1)
            generated.append(tok)
        return torch.stack(generated, 1), h


model = CharLM().eval()
greedy = torch.compile(model)
with torch.no_grad():
    for i in range(3):
        prompt = torch.randint(0, V, (3, 5))
        tokens, h = greedy(prompt, 6)
        print(i, tokens.tolist(), round(h.sum().item(), 4))
    print("emb row norms max", round(model.emb.weight.norm(dim=1).max().item(), 4))
