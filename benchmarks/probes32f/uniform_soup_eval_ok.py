# Uniform model soup: average the parameters of several fine-tuned copies with
# foreach ops, then score every ingredient and the soup with one compiled,
# functional evaluation (torch.func.functional_call with a dict of parameters).
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
x_train, x_val = torch.randn(512, 20), torch.randn(256, 20)
y_train, y_val = (x_train[:, :3] * 2).argmax(1), (x_val[:, :3] * 2).argmax(1)


@torch.compile
def evaluate(params, x, y):
    logits = functional_call(model, params, (x,))
    return F.cross_entropy(logits, y), (logits.argmax(1) == y).float().mean()


def finetune(seed, lr):
    torch.manual_seed(seed)
    params = {k: v.detach().clone().requires_grad_(True) for k, v in model.named_parameters()}
    opt = torch.optim.SGD(params.values(), lr=lr, momentum=0.9)
    for step in range(30):
        idx = torch.randint(0, 512, (64,))
        loss = F.cross_entropy(functional_call(model, params, (x_train[idx],)), y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {k: v.detach() for k, v in params.items()}


ingredients = [finetune(seed, lr) for seed, lr in [(1, 0.05), (2, 0.03), (3, 0.05), (4, 0.02)]]
names = list(ingredients[0])
soup_values = [torch.zeros_like(ingredients[0][k]) for k in names]
for ing in ingredients:
    torch._foreach_add_(soup_values, [ing[k] for k in names])
torch._foreach_div_(soup_values, len(ingredients))
soup = dict(zip(names, soup_values))

with torch.no_grad():
    for i, ing in enumerate(ingredients):
        loss, acc = evaluate(ing, x_val, y_val)
        print(f"ingredient {i}: val loss {loss.item():.4f}  acc {acc.item():.3f}")
    loss, acc = evaluate(soup, x_val, y_val)
    print(f"uniform soup: val loss {loss.item():.4f}  acc {acc.item():.3f}")
