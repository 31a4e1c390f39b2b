# Greedy model soup: average fine-tuned checkpoints one by one, keep an
# ingredient only if the averaged model scores better on held-out data.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make_model():
    return nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 4))


@torch.compile
def average_states(states):
    soup = {}
    for name in states[0]:
        soup[name] = sum(sd[name] for sd in states) / len(states)
    return soup


# "fine-tuned" ingredients: the same pretrained weights plus different noise
base = make_model()
ingredients = []
for i in range(12):
    sd = {k: v + 0.02 * torch.randn_like(v) for k, v in base.state_dict().items()}
    ingredients.append(sd)

x_val = torch.randn(256, 32)
with torch.no_grad():
    target = base(x_val)
evaluator = make_model()


def val_loss(sd):
    evaluator.load_state_dict(sd)
    with torch.no_grad():
        return F.mse_loss(evaluator(x_val), target).item()


soup = [ingredients[0]]
best = val_loss(ingredients[0])
for i, sd in enumerate(ingredients[1:], start=1):
    candidate = average_states(soup + [sd])
    loss = val_loss(candidate)
    if loss <= best:
        soup.append(sd)
        best = loss
    print(f"ingredient {i:2d}: candidate loss {loss:.6f}, soup size {len(soup)}")
print(f"final soup: {len(soup)} ingredients, val loss {best:.6f}")
