# Recursive neural network (Socher-style RvNN) over binary parse trees given as
# nested tuples of token ids, e.g. ((3, 7), (1, (4, 9))). The whole model is compiled.
import random
import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)
V, D = 20, 8


class RvNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.compose = nn.Linear(2 * D, D)
        self.out = nn.Linear(D, 2)

    def encode(self, t):
        if isinstance(t, int):
            return self.emb.weight[t]
        left, right = t
        return torch.tanh(self.compose(torch.cat([self.encode(left), self.encode(right)])))

    def forward(self, tree):
        return self.out(self.encode(tree))


def random_tree(n):
    if n == 1:
        return random.randrange(V)
    k = random.randrange(1, n)
    return (random_tree(k), random_tree(n - k))


model = RvNN()
classify = torch.compile(model)
with torch.no_grad():
    for i in range(14):
        tree = random_tree(random.randint(3, 5))
        logits = classify(tree)
        print(i, tree, [round(v, 4) for v in logits.tolist()])
