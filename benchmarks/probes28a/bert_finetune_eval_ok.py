"""Fine-tune a small BERT classifier for a few steps (AdamW + linear warmup), then evaluate."""
import torch
from transformers import BertConfig, BertForSequenceClassification, get_linear_schedule_with_warmup

torch.manual_seed(0)
config = BertConfig(vocab_size=600, hidden_size=64, num_hidden_layers=1, num_attention_heads=4,
                    intermediate_size=128, num_labels=3, max_position_embeddings=64,
                    problem_type="single_label_classification")
model = BertForSequenceClassification(config)
compiled = torch.compile(model)

SEQ = 24
ids = torch.randint(1, 600, (32, SEQ))
mask = torch.ones_like(ids)
mask[::3, 18:] = 0
labels = torch.randint(0, 3, (32,))

opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.01)
sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=2, num_training_steps=8)
model.train()
for step in range(6):
    sl = slice((step % 4) * 8, (step % 4) * 8 + 8)
    out = compiled(input_ids=ids[sl], attention_mask=mask[sl], labels=labels[sl])
    out.loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    opt.zero_grad()
    print(f"step {step} loss {out.loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}")

model.eval()
with torch.no_grad():
    preds = compiled(input_ids=ids, attention_mask=mask).logits.argmax(-1)
print(f"train accuracy {(preds == labels).float().mean().item():.3f}")
