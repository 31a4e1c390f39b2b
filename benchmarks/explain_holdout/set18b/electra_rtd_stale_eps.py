"""transformers 5.25.0, ElectraForPreTraining (built from ElectraConfig, random weights).

ELECTRA's replaced-token-detection step with a custom masked loss, compiled on its own
(`torch.compile(rtd_loss)`): the discriminator's probabilities are clamped to [eps, 1 - eps]
and the 0/1 targets smoothed by the same eps, which the loop anneals every step (a Python
float). pytorch/pytorch#197889 (open): a Python float used both in tensor arithmetic and as a
float parameter of an operator (clamp's bounds, a norm's eps) goes stale: after the float
becomes dynamic, later values reuse a cached compiled artifact that baked an earlier value, with
no error. Here the compiled loss equals eager at steps 0 and 1 and then differs (steps 2-4:
0.5761 vs 0.6265 ...): the clamp uses an old eps. The program prints both; run with
--check-accuracy.
"""
import torch
from transformers import ElectraConfig, ElectraForPreTraining

torch.manual_seed(0)
config = ElectraConfig(vocab_size=100, embedding_size=32, hidden_size=32, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=64, max_position_embeddings=64,
                       initializer_range=0.5)
model = ElectraForPreTraining(config).train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)


def rtd_loss(logits, replaced, mask, eps):
    probs = torch.sigmoid(logits).clamp(eps, 1 - eps)
    target = replaced * (1 - eps) + 0.5 * eps
    bce = -(target * probs.log() + (1 - target) * (1 - probs).log())
    return (bce * mask).sum() / mask.sum()


compiled_loss = torch.compile(rtd_loss)
for step in range(5):
    ids = torch.randint(0, 100, (4, 12))
    mask = torch.ones(4, 12)
    mask[1, 8:] = 0
    mask[3, 5:] = 0
    replaced = (torch.rand(4, 12) < 0.15).float()
    eps = 0.2 / (1 + step)  # anneal the smoothing / clamp margin
    logits = model(input_ids=ids, attention_mask=mask.long()).logits
    loss = compiled_loss(logits, replaced, mask, eps)
    ref = rtd_loss(logits.detach(), replaced, mask, eps)
    print(f"step {step} eps {eps:.4f} loss {loss.item():.6f} eager {ref.item():.6f}")
    loss.backward()
    opt.step()
    opt.zero_grad()
