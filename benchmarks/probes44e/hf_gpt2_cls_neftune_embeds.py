"""NEFTune-style fine-tuning of a tiny GPT-2 sequence classifier.

NEFTune (Jain et al. 2023) adds uniform noise to the input embeddings during
fine-tuning, so the training step feeds `inputs_embeds` instead of `input_ids`.
The whole model is compiled with torch.compile.
"""
import math

import torch
import torch.nn.functional as F
from transformers import GPT2Config, GPT2ForSequenceClassification

torch.manual_seed(0)

SEQ, BATCH, LABELS, NEFT_ALPHA = 24, 8, 3, 5.0

cfg = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=512, n_positions=64,
                 num_labels=LABELS, problem_type="single_label_classification", pad_token_id=0, bos_token_id=1, eos_token_id=2)
model = GPT2ForSequenceClassification(cfg)
embed = model.get_input_embeddings()
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)


def make_batch(n):
    # fixed-length synthetic "reviews": label = which third of the vocab dominates
    labels = torch.randint(0, LABELS, (n,))
    lo = 3 + labels * 160
    ids = lo[:, None] + torch.randint(0, 160, (n, SEQ))
    return ids, labels


def neftune_embeds(ids):
    x = embed(ids)
    mag = NEFT_ALPHA / math.sqrt(ids.shape[1] * x.shape[-1])
    return x + torch.empty_like(x).uniform_(-mag, mag)


def train_step(ids, labels):
    out = compiled(inputs_embeds=neftune_embeds(ids), labels=labels)
    out.loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return out.loss.detach()


@torch.no_grad()
def evaluate(ids, labels):
    model.eval()
    logits = model(input_ids=ids).logits  # plain model for the held-out check
    model.train()
    return (logits.argmax(-1) == labels).float().mean().item()


model.train()
eval_ids, eval_labels = make_batch(64)
for step in range(30):
    ids, labels = make_batch(BATCH)
    loss = train_step(ids, labels)
    if step % 10 == 9:
        print(f"step {step + 1:3d}  loss {loss.item():.4f}")
print(f"eval accuracy {evaluate(eval_ids, eval_labels):.3f}")
