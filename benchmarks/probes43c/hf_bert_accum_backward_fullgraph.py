"""Fine-tuning a tiny BERT classifier (random weights, built from a config) with
gradient accumulation: each micro-batch's forward + scaled loss + backward is one
compiled function (fullgraph=True, "so nothing falls back to eager"); the
optimizer steps every ACCUM micro-batches."""
import torch
from transformers import BertConfig, BertForSequenceClassification
from transformers.utils import logging as hf_logging

hf_logging.set_verbosity_error()
torch.manual_seed(0)
cfg = BertConfig(num_hidden_layers=2, hidden_size=32, intermediate_size=64,
                 num_attention_heads=2, vocab_size=120, max_position_embeddings=64,
                 num_labels=3, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
model = BertForSequenceClassification(cfg).train()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
ACCUM = 4


def make_batch(n=8, seq=16):
    ids = torch.randint(5, 120, (n, seq))
    lengths = torch.randint(6, seq + 1, (n,))
    mask = (torch.arange(seq)[None, :] < lengths[:, None]).long()
    ids = ids * mask  # pad id 0
    labels = (ids[:, 1] % 3).long()
    return ids, mask, labels


@torch.compile(fullgraph=True)
def micro_step(ids, mask, labels):
    out = model(input_ids=ids, attention_mask=mask, labels=labels)
    loss = out.loss / ACCUM
    loss.backward()
    return loss.detach()


batches = [make_batch() for _ in range(16)]
for epoch in range(2):
    total = 0.0
    for i, (ids, mask, labels) in enumerate(batches):
        total += micro_step(ids, mask, labels).item() * ACCUM
        if (i + 1) % ACCUM == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
    print(f"epoch {epoch}: mean loss {total / len(batches):.4f}")
