"""NEFTune-style fine-tuning of a tiny GPT-2 classifier, head written by hand.

Same recipe as hf_gpt2_cls_neftune_embeds.py (uniform noise on the input
embeddings, so the backbone gets `inputs_embeds`), but the classifier head is a
small nn.Module over GPT2Model's last hidden state: pooling the last token is
done here, so nothing in the compiled forward has to guess where padding is.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import GPT2Config, GPT2Model

torch.manual_seed(0)

SEQ, BATCH, LABELS, NEFT_ALPHA = 24, 8, 3, 5.0


class GPT2Classifier(nn.Module):
    def __init__(self, cfg, num_labels):
        super().__init__()
        self.backbone = GPT2Model(cfg)
        self.score = nn.Linear(cfg.n_embd, num_labels, bias=False)

    def forward(self, inputs_embeds, labels=None):
        h = self.backbone(inputs_embeds=inputs_embeds).last_hidden_state
        logits = self.score(h[:, -1])  # fixed-length inputs: last token is real
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return loss, logits


cfg = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=512, n_positions=64,
                 pad_token_id=0, bos_token_id=1, eos_token_id=2)
model = GPT2Classifier(cfg, LABELS)
embed = model.backbone.get_input_embeddings()
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)


def make_batch(n):
    labels = torch.randint(0, LABELS, (n,))
    lo = 3 + labels * 160
    ids = lo[:, None] + torch.randint(0, 160, (n, SEQ))
    return ids, labels


def neftune_embeds(ids):
    x = embed(ids)
    mag = NEFT_ALPHA / math.sqrt(ids.shape[1] * x.shape[-1])
    return x + torch.empty_like(x).uniform_(-mag, mag)


def train_step(ids, labels):
    loss, _ = compiled(neftune_embeds(ids), labels)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.detach()


@torch.no_grad()
def evaluate(ids, labels):
    model.eval()
    _, logits = model(embed(ids))  # plain model for the held-out check
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
