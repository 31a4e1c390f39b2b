# Evaluate a tiny BERT classifier, compiled, on two sources: batches from the data
# collator (int64 attention masks) and ad-hoc batches whose mask is built from the padding.
import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
PAD = 0
cfg = BertConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=2,
                 vocab_size=100, max_position_embeddings=64, num_labels=2, pad_token_id=PAD,
                 problem_type="single_label_classification")
model = BertForSequenceClassification(cfg).eval()
cmodel = torch.compile(model)


def make_batch(n=8, L=16):
    ids = torch.randint(1, 100, (n, L))
    lens = torch.randint(6, L + 1, (n,))
    ids[torch.arange(L)[None, :] >= lens[:, None]] = PAD
    return ids, (ids[:, 0] > 50).long()


def collate(n=8, L=16):
    ids, y = make_batch(n, L)
    return {"input_ids": ids, "attention_mask": (ids != PAD).long()}, y


correct = total = 0
with torch.no_grad():
    for step in range(6):
        if step % 2 == 0:
            batch, y = collate()
            logits = cmodel(**batch).logits
        else:
            ids, y = make_batch()
            logits = cmodel(input_ids=ids, attention_mask=(ids != PAD).to(torch.float32)).logits
        correct += (logits.argmax(-1) == y).sum().item()
        total += y.numel()
        print(f"step {step} logits0 {logits[0].round(decimals=4).tolist()}")
print(f"accuracy {correct / total:.3f}")
